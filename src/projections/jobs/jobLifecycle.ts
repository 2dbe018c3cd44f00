// The job lifecycle (docs/jobs.md): which commands move a job from which status to which. Pure.
//
//   planned ─arm─▶ armed ─start (at dispatch_at)─▶ running ─succeed─▶ succeeded
//                                                   │  ▲  └──fail────▶ failed
//                                     pause / trip  ▼  │ resume
//                                                  paused ─rollback─▶ failed (rollouts)
//   cancel: from planned, armed, running or paused ─▶ cancelled
//
// A command from any other status is a conflict (the API answers 409 with the current status).

export type JobStatus = 'planned' | 'armed' | 'running' | 'paused' | 'succeeded' | 'failed' | 'cancelled';
export const jobStatuses: readonly JobStatus[] = [
  'planned',
  'armed',
  'running',
  'paused',
  'succeeded',
  'failed',
  'cancelled',
];

export type JobCommand =
  'arm' | 'start' | 'pause' | 'trip' | 'resume' | 'cancel' | 'rollback' | 'succeed' | 'fail';

const moves: Readonly<Record<JobCommand, { readonly from: readonly JobStatus[]; readonly to: JobStatus }>> = {
  arm: { from: ['planned'], to: 'armed' },
  start: { from: ['armed'], to: 'running' },
  pause: { from: ['running'], to: 'paused' },
  trip: { from: ['running'], to: 'paused' },
  resume: { from: ['paused'], to: 'running' },
  cancel: { from: ['planned', 'armed', 'running', 'paused'], to: 'cancelled' },
  rollback: { from: ['running', 'paused'], to: 'failed' },
  succeed: { from: ['running'], to: 'succeeded' },
  fail: { from: ['running'], to: 'failed' },
};

export const isFinal = (status: JobStatus): boolean =>
  status === 'succeeded' || status === 'failed' || status === 'cancelled';

/** The status `command` moves a job in `status` to, or undefined when it may not. */
export function nextStatus(status: JobStatus, command: JobCommand): JobStatus | undefined {
  const move = moves[command];
  return move.from.includes(status) ? move.to : undefined;
}

/** The commands a job in `status` accepts (what the UI offers as buttons). */
export function allowedCommands(status: JobStatus): JobCommand[] {
  return (Object.keys(moves) as JobCommand[]).filter((c) => moves[c].from.includes(status));
}
