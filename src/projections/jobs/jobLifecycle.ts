// The job lifecycle (docs/jobs.md): which commands move a job from which status to which, and what
// each status means for the rest of the service. Both are one table each, so a new status or command
// makes the type checker name every place that must say how it behaves. Pure.
//
//   planned ─arm─▶ armed ─start (at dispatch_at)─▶ running ─succeed─▶ succeeded
//                                                   │  ▲  └──fail────▶ failed
//                                     pause / trip  ▼  │ resume
//                                                  paused ─rollback─▶ failed (rollouts)
//   running ─hold (a rollout ended with failed targets)─▶ awaiting_promotion ─promote─▶ succeeded
//                                                                            └rollback─▶ failed
//   cancel: from planned, armed, running, paused or awaiting_promotion ─▶ cancelled
//
// A command from any other status is a conflict (the API answers 409 with the current status).

export interface StatusBehaviour {
  /** The job has ended: nothing moves it any more. */
  readonly final: boolean;
  /**
   * A rollout in this status holds its config (one active rollout per config, migration 00014) and
   * its reached targets stay pinned to the new revision.
   */
  readonly holdsConfig: boolean;
  /** Its in-flight targets are still watched for outcomes. */
  readonly watched: boolean;
}

export const jobStatusTable = {
  planned: { final: false, holdsConfig: false, watched: false },
  armed: { final: false, holdsConfig: true, watched: false },
  running: { final: false, holdsConfig: true, watched: true },
  paused: { final: false, holdsConfig: true, watched: true },
  awaiting_promotion: { final: false, holdsConfig: true, watched: true },
  succeeded: { final: true, holdsConfig: false, watched: false },
  failed: { final: true, holdsConfig: false, watched: false },
  cancelled: { final: true, holdsConfig: false, watched: false },
} as const satisfies Record<string, StatusBehaviour>;

export type JobStatus = keyof typeof jobStatusTable;
export const jobStatuses = Object.keys(jobStatusTable) as readonly JobStatus[];

/** The statuses whose behaviour has `flag` set, in table order (SQL lists are built from these). */
export const statusesWhere = (flag: keyof StatusBehaviour): JobStatus[] =>
  jobStatuses.filter((s) => jobStatusTable[s][flag]);

export interface CommandBehaviour {
  readonly from: readonly JobStatus[];
  readonly to: JobStatus;
  /** Who may give it: an operator through the API and pages, or only the service's own steps. */
  readonly by: 'operator' | 'service';
}

export const jobCommandTable = {
  arm: { from: ['planned'], to: 'armed', by: 'operator' },
  start: { from: ['armed'], to: 'running', by: 'service' },
  pause: { from: ['running'], to: 'paused', by: 'operator' },
  trip: { from: ['running'], to: 'paused', by: 'service' },
  resume: { from: ['paused'], to: 'running', by: 'operator' },
  cancel: {
    from: ['planned', 'armed', 'running', 'paused', 'awaiting_promotion'],
    to: 'cancelled',
    by: 'operator',
  },
  rollback: { from: ['running', 'paused', 'awaiting_promotion'], to: 'failed', by: 'operator' },
  hold: { from: ['running'], to: 'awaiting_promotion', by: 'service' },
  promote: { from: ['awaiting_promotion'], to: 'succeeded', by: 'operator' },
  succeed: { from: ['running'], to: 'succeeded', by: 'service' },
  fail: { from: ['running'], to: 'failed', by: 'service' },
} as const satisfies Record<string, CommandBehaviour>;

export type JobCommand = keyof typeof jobCommandTable;
/** The commands an operator gives to a job that is already armed (POST /api/jobs/{id}/<command>). */
export type OperatorCommand = Exclude<
  { [C in JobCommand]: (typeof jobCommandTable)[C]['by'] extends 'operator' ? C : never }[JobCommand],
  'arm'
>;
export const operatorCommands = (Object.keys(jobCommandTable) as JobCommand[]).filter(
  (c): c is OperatorCommand => jobCommandTable[c].by === 'operator' && c !== 'arm',
);

const commandTable: Readonly<Record<JobCommand, CommandBehaviour>> = jobCommandTable;

export const isFinal = (status: JobStatus): boolean => jobStatusTable[status].final;

/** The status `command` moves a job in `status` to, or undefined when it may not. */
export function nextStatus(status: JobStatus, command: JobCommand): JobStatus | undefined {
  const move = commandTable[command];
  return move.from.includes(status) ? move.to : undefined;
}

/** The commands a job in `status` accepts (what the UI offers as buttons). */
export function allowedCommands(status: JobStatus): JobCommand[] {
  return (Object.keys(commandTable) as JobCommand[]).filter((c) => commandTable[c].from.includes(status));
}
