// A real peer process for a spec: started in its own process group (the supervisor starts a Collector
// of its own), its output kept so a failing spec can show it, and stopped with the whole group.

import { spawn, type ChildProcess } from 'node:child_process';

export interface PeerProcess {
  readonly pid: number;
  /** Everything it printed so far (stdout and stderr interleaved). */
  output(): string;
  /** Resolves with the first line (printed before or after the call) that matches. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM to the group, then SIGKILL if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** What a failed wait shows of the peer's output. */
const shownTail = 6_000;

/** Groups still running when mocha exits (a spec that died before its after hook) are killed then,
 * so no supervisor or Collector outlives the run. */
const live = new Set<number>();
process.on('exit', () => {
  for (const pid of live) killGroup(pid, 'SIGKILL');
});

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

export function startPeer(file: string, args: readonly string[], cwd: string): PeerProcess {
  const child = spawn(file, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const waiters = new Set<() => void>();
  const append = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const wake of waiters) wake();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  if (child.pid !== undefined) live.add(child.pid);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', (code, signal) => append(Buffer.from(`\n[exited code=${code} signal=${signal}]\n`)));
  return {
    pid: child.pid ?? -1,
    output: () => text,
    waitForLine: (pattern, timeoutMs = 60_000) => waitForLine(() => text, waiters, pattern, timeoutMs),
    stop: (graceMs = 10_000) => stopGroup(child, exited, graceMs),
  };
}

function waitForLine(
  text: () => string,
  waiters: Set<() => void>,
  pattern: RegExp,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const line = text()
        .split('\n')
        .find((l) => pattern.test(l));
      if (line === undefined) return;
      done();
      resolve(line);
    };
    const timer = setTimeout(() => {
      done();
      reject(
        new Error(`no line matching ${pattern} within ${timeoutMs} ms; output:\n${text().slice(-shownTail)}`),
      );
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      waiters.delete(check);
    };
    waiters.add(check);
    check();
  });
}

async function stopGroup(child: ChildProcess, exited: Promise<void>, graceMs: number): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  if (child.exitCode === null && child.signalCode === null) {
    killGroup(pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs)));
    const late = await Promise.race([exited.then(() => false), timedOut]);
    clearTimeout(timer);
    if (late) killGroup(pid, 'SIGKILL');
    await exited;
  }
  // A Collector the supervisor started is in the same group and may outlive it by a moment.
  killGroup(pid, 'SIGKILL');
  live.delete(pid);
}
