// Making a job act (docs/jobs.md "API"), shared by POST /api/jobs/{id}/... and the job page's
// buttons, so both check the same things in the same order: arm checks the job, its target mode and
// dispatch time, its action settings, a rollout's config and revision, then resolves the targets;
// pause, resume, cancel, rollback and promote go to the lifecycle (the last two only for rollouts). The
// caller has already authorized the write (authorizeWrite) and names the actor.

import {
  operatorCommands,
  type JobStatus,
  type OperatorCommand,
} from '../../projections/jobs/jobLifecycle.ts';
import { parseActionSettings, rollsOut, type ActionSettings } from '../../projections/jobs/jobActions.ts';
import type { ConfigCatalog } from '../../projections/remoteConfig/configCatalog.ts';
import type { ActOutcome, Job, JobControl } from '../../projections/jobs/jobStore.ts';
import { TargetError, type JobTargetResolver } from '../read/jobTargets.ts';

export type ActCommand = OperatorCommand;
export type JobCommandName = 'arm' | ActCommand;
export const jobCommandNames: readonly JobCommandName[] = ['arm', ...operatorCommands];

export type CommandOutcome =
  | { readonly ok: true; readonly job: Job }
  | {
      readonly ok: false;
      readonly status: 400 | 404 | 409;
      readonly error: string;
      /** The job's status when a 409 refused the move. */
      readonly current?: JobStatus;
    };

/** How to arm: as a request gives it (checked here). */
export interface ArmOptions {
  readonly target_mode?: unknown;
  readonly dispatch_at?: unknown;
}

export interface JobCommandDeps {
  readonly jobs: JobControl;
  readonly configs: ConfigCatalog;
  readonly resolveTargets: JobTargetResolver;
  readonly now: () => number;
}

export interface JobCommands {
  arm(id: string, actor: string, options: ArmOptions): Promise<CommandOutcome>;
  act(id: string, command: ActCommand, actor: string, reason: string): Promise<CommandOutcome>;
}

const refused = (status: 400 | 404 | 409, error: string, current?: JobStatus): CommandOutcome =>
  current === undefined ? { ok: false, status, error } : { ok: false, status, error, current };

const fromAct = (outcome: ActOutcome): CommandOutcome =>
  outcome.ok ? outcome : refused(outcome.status, outcome.error, outcome.job?.status);

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Job ids are UUIDs; anything else names no job (and would make the database refuse the query). */
export const isJobId = (id: string): boolean => uuid.test(id);

export function createJobCommands(deps: JobCommandDeps): JobCommands {
  const { jobs, configs } = deps;
  const find = (id: string) =>
    isJobId(id) ? jobs.get(id).catch(() => undefined) : Promise.resolve(undefined);

  /** Checks a rollout can start: a draft newer than the current revision, and no other rollout of it. */
  async function rolloutProblem(job: Job, settings: ActionSettings): Promise<CommandOutcome | undefined> {
    if (settings.action !== 'config_rollout') return undefined;
    if (configs.source !== 'database')
      return refused(409, 'rollouts need remote configs in the database (not remote_config.dir)');
    const summary = await configs.get(settings.config);
    if (summary === undefined) return refused(400, `no config ${settings.config}`);
    if ((await configs.revision(settings.config, settings.revision)) === undefined)
      return refused(400, `config ${settings.config} has no revision ${settings.revision}`);
    if (settings.revision <= (summary.current?.revision ?? 0))
      return refused(
        400,
        `revision ${settings.revision} is not a draft newer than the current revision ${summary.current?.revision}`,
      );
    const active = (await jobs.activeRollouts(settings.config)).filter((j) => j.id !== job.id);
    if (active.length > 0)
      return refused(409, `job ${active[0]!.id} is already rolling out ${settings.config}`);
    return undefined;
  }

  return {
    async arm(id, actor, options) {
      const job = await find(id);
      if (job === undefined) return refused(404, `no job ${id}`);
      if (job.status !== 'planned')
        return refused(409, `job ${id} is ${job.status}: it cannot arm`, job.status);
      const targetMode = options.target_mode ?? 'snapshot';
      if (targetMode !== 'snapshot' && targetMode !== 'live')
        return refused(400, 'target_mode must be snapshot or live');
      const at = options.dispatch_at ?? null;
      if (at !== null && typeof at !== 'string') return refused(400, 'dispatch_at must be an ISO 8601 time');
      const dispatchAt = at === null ? deps.now() : Date.parse(at);
      if (Number.isNaN(dispatchAt)) return refused(400, 'dispatch_at must be an ISO 8601 time');
      const settings = parseActionSettings(job.action, job.action_config);
      if (!settings.ok) return refused(400, settings.error);
      const problem = await rolloutProblem(job, settings.value);
      if (problem !== undefined) return problem;
      let targets;
      try {
        targets = await deps.resolveTargets(job, settings.value);
      } catch (error) {
        if (error instanceof TargetError) return refused(400, error.message);
        throw error;
      }
      const fromRevision =
        settings.value.action === 'config_rollout'
          ? ((await configs.get(settings.value.config))?.current?.revision ?? null)
          : null;
      return fromAct(await jobs.arm(id, { actor, targetMode, dispatchAt, targets, fromRevision }));
    },

    async act(id, command, actor, reason) {
      if (!isJobId(id)) return refused(404, `no job ${id}`);
      if (command === 'rollback' || command === 'promote') {
        const job = await find(id);
        if (job !== undefined && !rollsOut(job.action))
          return refused(
            409,
            `job ${id} is a ${job.action}: only config rollouts ${command === 'rollback' ? 'roll back' : 'are promoted'}`,
            job.status,
          );
      }
      return fromAct(await jobs.act(id, command, actor, reason));
    },
  };
}
