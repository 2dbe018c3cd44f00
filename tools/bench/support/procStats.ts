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
