// CPU time and memory of a process, read from /proc (Linux): utime + stime from /proc/PID/stat, and
// VmRSS / VmHWM (peak RSS) from /proc/PID/status.

import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/PID/stat times (USER_HZ; 100 on Linux). */
const ticksPerSecond = 100;

export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, i.e. 11 and 12 after "pid (comm) ".
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

export function memoryKiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/**
 * Resolves once the process has used no CPU for `quietMs` (or after `maxMs`): a server prints that
 * it is listening before its startup is over (the service then gives its startup memory back in a
 * full collection, 60 to 70 ms of CPU), and a measurement that starts at that line would charge the
 * startup to whatever it measures.
 */
export async function settled(pid: number, quietMs = 200, maxMs = 5000): Promise<void> {
  const step = 50;
  let last = cpuSeconds(pid);
  let quiet = 0;
  for (let waited = 0; waited < maxMs && quiet < quietMs; waited += step) {
    await new Promise((resolve) => setTimeout(resolve, step));
    const now = cpuSeconds(pid);
    quiet = now === last ? quiet + step : 0;
    last = now;
  }
}
