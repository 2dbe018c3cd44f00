// The parent side of fleetChild.ts: starts a simulated fleet in a child process and asks it for
// snapshots. Its process id lets a scenario account for the load generator's CPU apart from the
// server's.

import { fork, type ChildProcess } from 'node:child_process';
import type { FleetOptions, FleetSnapshot } from '../../simulate/fleet.ts';
import type { FleetReport, FleetRequest } from './fleetChild.ts';

export interface FleetProcess {
  readonly pid: number;
  /** Resolves once every agent of the fleet had its connection attempt (not that all are up). */
  readonly started: Promise<void>;
  snapshot(): Promise<FleetSnapshot>;
  stop(): Promise<void>;
}

export function startFleetProcess(options: FleetOptions): FleetProcess {
  const child: ChildProcess = fork(new URL('./fleetChild.ts', import.meta.url), [JSON.stringify(options)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  type Waiter = { resolve: (report: FleetReport) => void; reject: (error: Error) => void };
  const waiting = new Map<FleetReport['type'], Waiter[]>();
  let exited: Error | undefined;
  const next = (type: FleetReport['type']) =>
    new Promise<FleetReport>((resolve, reject) => {
      if (exited) return reject(exited);
      const list = waiting.get(type) ?? [];
      list.push({ resolve, reject });
      waiting.set(type, list);
    });
  child.on('message', (report: FleetReport) => waiting.get(report.type)?.shift()?.resolve(report));
  child.once('exit', (code) => {
    exited = new Error(`fleet process exited with ${code}`);
    for (const list of waiting.values()) for (const w of list.splice(0)) w.reject(exited);
  });
  const request = (r: FleetRequest) => child.send(r);
  const started = next('started').then(() => undefined);
  started.catch(() => undefined);
  return {
    pid: child.pid!,
    started,
    async snapshot() {
      const report = next('snapshot');
      request({ type: 'snapshot' });
      return ((await report) as Extract<FleetReport, { type: 'snapshot' }>).snapshot;
    },
    async stop() {
      if (exited || !child.connected) return;
      const stopped = next('stopped');
      request({ type: 'stop' });
      await stopped.catch(() => undefined);
      if (!exited)
        await new Promise<void>((resolve) => {
          const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
          child.once('exit', () => (clearTimeout(kill), resolve()));
        });
    },
  };
}
