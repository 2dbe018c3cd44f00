// The parent side of loadChild.ts: the throughput load generator in a child process, asked for its
// reply counts over IPC. Its process id lets the scenario report the generator's CPU apart from the
// server's.

import { fork } from 'node:child_process';
import type { LoadCounters } from './loadClients.ts';
import type { LoadReport, LoadRequest, LoadSettings } from './loadChild.ts';

export interface LoadProcess {
  readonly pid: number;
  counts(): Promise<LoadCounters>;
  stop(): Promise<void>;
}

/** Starts the generator; resolves once every connection is open and sending. */
export async function startLoadProcess(settings: LoadSettings): Promise<LoadProcess> {
  const child = fork(new URL('./loadChild.ts', import.meta.url), [JSON.stringify(settings)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  type Waiter = { resolve: (report: LoadReport) => void; reject: (error: Error) => void };
  const waiting = new Map<LoadReport['type'], Waiter[]>();
  let exited: Error | undefined;
  const next = (type: LoadReport['type']) =>
    new Promise<LoadReport>((resolve, reject) => {
      if (exited) return reject(exited);
      const list = waiting.get(type) ?? [];
      list.push({ resolve, reject });
      waiting.set(type, list);
    });
  child.on('message', (report: LoadReport) => waiting.get(report.type)?.shift()?.resolve(report));
  child.once('exit', (code) => {
    exited = new Error(`load process exited with ${code}`);
    for (const list of waiting.values()) for (const w of list.splice(0)) w.reject(exited);
  });
  const request = (r: LoadRequest) => child.send(r);
  await next('ready');
  return {
    pid: child.pid!,
    async counts() {
      const report = next('counts');
      request({ type: 'counts' });
      return ((await report) as Extract<LoadReport, { type: 'counts' }>).counts;
    },
    async stop() {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      request({ type: 'stop' });
      await gone;
      clearTimeout(kill);
    },
  };
}
