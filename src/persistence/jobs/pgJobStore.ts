// Jobs on PostgreSQL (SPEC "Job"; docs/jobs.md). POST /api/jobs records a planned job; the lifecycle
// commands run as transactions that lock the job row, check the move (a wrong one is 409 with the
// current status), set its time, record a job event (who, when, why) and notify svc_jobs, so every
// replica reloads what its agents should receive; then the job's next step is requested.

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { rollsOut } from '../../projections/jobs/jobActions.ts';
import { acknowledgedOf, acknowledgedText } from '../../projections/jobs/rolloutPlan.ts';
import { nextStatus, type JobCommand, type JobStatus } from '../../projections/jobs/jobLifecycle.ts';
import { notifySql } from '../database/notifications.ts';
import type { Sql } from '../database/sql.ts';
import { storedJson, storedText } from '../database/storedText.ts';
import { inTransaction } from '../database/transaction.ts';
import { countTargets } from './jobCounts.ts';
import { makeCurrentIn } from './promotion.ts';
import { eventFromRow, jobFromRow, jobWidth, targetFromRow } from './jobRows.ts';
import {
  activeRolloutsSql,
  closeTargetsSql,
  eventsSql,
  insertEventSql,
  insertTargetsSql,
  jobSql,
  jobsChannel,
  jobsOfAgentSql,
  listJobsSql,
  saveCountsSql,
  statusCountsSql,
  targetCountsSql,
  targetCountsByActionSql,
  targetsSql,
  updateJobSql,
  type JobChanges,
} from './jobSql.ts';
import type {
  ActOutcome,
  ArmRequest,
  Job,
  JobControl,
  JobStore,
  NewJob,
} from '../../projections/jobs/jobStore.ts';
import { stageStateCountFromRow, targetsByStageSql } from './targetsByStage.ts';

export function insertJobSql(job: Job): Sql {
  return {
    text: `INSERT INTO jobs (id, filter, action, action_config, status, target_mode, submitted_by, created_at,
  armed_at, dispatch_at, cancelled_at, updated_at)
VALUES ($1, $2, $3, $4::jsonb, $5, NULL, $6, $7::timestamptz, NULL, NULL, NULL, $7::timestamptz)`,
    values: [
      job.id,
      storedText(job.filter),
      storedText(job.action),
      storedJson(job.action_config),
      job.status,
      storedText(job.submitted_by),
      job.created_at,
    ],
  };
}

const isOneRolloutViolation = (error: unknown): boolean =>
  error instanceof Error &&
  (error as Error & { code?: string; constraint?: string }).code === '23505' &&
  (error as Error & { constraint?: string }).constraint === 'jobs_one_active_rollout_idx';

const rowsOf = async (client: pg.ClientBase | pg.Pool, sql: Sql) =>
  (await client.query<unknown[]>({ text: sql.text, values: sql.values, rowMode: 'array' })).rows;

export interface PgJobStoreDeps {
  readonly now: () => number;
  /** Asks for the job's next step soon (the stepper, through the job queue). Must not reject. */
  readonly requestStep?: (jobId: string) => Promise<void>;
  /** After a promotion committed: reload this replica's configs in force (publishes the change). */
  readonly configsChanged?: () => Promise<void>;
}

/**
 * What a command changes besides its status, or why it cannot (409, nothing written); `event` adds
 * to its job event (words after the operator's reason, and details).
 */
type Apply = (
  client: pg.ClientBase,
  job: Job,
  at: number,
) => Promise<(JobChanges & { readonly event?: { note: string; details: unknown } }) | { refused: string }>;

export function createPgJobStore(pool: pg.Pool, deps: PgJobStoreDeps): JobStore & JobControl {
  const { now } = deps;

  async function transition(
    id: string,
    command: JobCommand,
    actor: string,
    reason: string,
    apply: Apply = () => Promise.resolve({}),
  ): Promise<ActOutcome> {
    const outcome = await inTransaction(pool, async (client): Promise<ActOutcome> => {
      const [row] = await rowsOf(client, jobSql(id, { forUpdate: true }));
      if (row === undefined) return { ok: false, status: 404, error: `no job ${id}` };
      const job = jobFromRow(row);
      const to = nextStatus(job.status, command);
      if (to === undefined)
        return { ok: false, status: 409, error: `job ${id} is ${job.status}: it cannot ${command}`, job };
      const at = now();
      const applied = await apply(client, job, at);
      if ('refused' in applied) return { ok: false, status: 409, error: applied.refused, job };
      const { event, ...changes } = applied;
      await client.query(updateJobSql(id, to, changes, at));
      const counts = countTargets(await rowsOf(client, targetCountsSql(id)));
      await client.query(saveCountsSql(id, counts.byState));
      const note = event?.note ? (reason ? `${reason}; ${event.note}` : event.note) : reason;
      const details = event?.details;
      await client.query(
        insertEventSql({ jobId: id, at, actor, kind: command, from: job.status, to, reason: note, details }),
      );
      await client.query(notifySql(jobsChannel, id));
      const [after] = await rowsOf(client, jobSql(id));
      return { ok: true, job: jobFromRow(after!) };
    });
    if (outcome.ok && command === 'promote') await deps.configsChanged?.().catch(() => undefined); // retried by the config sync's reconcile
    if (outcome.ok) await deps.requestStep?.(id);
    return outcome;
  }

  /**
   * Arming a rollout while another of the same config is active breaks jobs_one_active_rollout_idx
   * (migration 00010): the web layer's check can pass on two replicas at once, the index cannot.
   */
  async function arm(id: string, request: ArmRequest): Promise<ActOutcome> {
    try {
      return await transition(
        id,
        'arm',
        request.actor,
        `${request.targets.length} target(s), ${request.targetMode}`,
        async (client, _job, at) => {
          await client.query(insertTargetsSql(id, request.targets, at));
          return {
            armed_at: at,
            dispatch_at: Math.max(at, request.dispatchAt),
            target_mode: request.targetMode,
            from_revision: request.fromRevision,
            stage: 0,
          };
        },
      );
    } catch (error) {
      if (!isOneRolloutViolation(error)) throw error;
      const [row] = await rowsOf(pool, jobSql(id));
      const job = row && jobFromRow(row);
      const config = String(job?.action_config.config);
      const [other] = (await rowsOf(pool, activeRolloutsSql(config))).map(jobFromRow);
      return {
        ok: false,
        status: 409,
        error: `job ${other?.id ?? 'another job'} is already rolling out ${config}`,
        ...(job !== undefined && { job }),
      };
    }
  }

  return {
    async create(request: NewJob): Promise<Job> {
      const job: Job = {
        id: randomUUID(),
        filter: request.filter,
        action: request.action,
        action_config: request.action_config,
        status: 'planned',
        target_mode: null,
        submitted_by: request.submitted_by,
        created_at: new Date(now()).toISOString(),
        armed_at: null,
        dispatch_at: null,
        cancelled_at: null,
      };
      await pool.query(insertJobSql(job));
      return job;
    },
    list: async (status?: JobStatus) => (await rowsOf(pool, listJobsSql(status, 500))).map(jobFromRow),
    get: async (id) => {
      const [row] = await rowsOf(pool, jobSql(id));
      return row && jobFromRow(row);
    },
    targets: async (id, page, state) =>
      (await rowsOf(pool, targetsSql(id, page.limit, page.offset, state))).map((row) => targetFromRow(row)),
    events: async (id) => (await rowsOf(pool, eventsSql(id))).map(eventFromRow),
    targetsByStage: async (id) => (await rowsOf(pool, targetsByStageSql(id))).map(stageStateCountFromRow),
    jobsOfAgent: async (uid) =>
      (await rowsOf(pool, jobsOfAgentSql(uid))).map((row) => ({
        job: jobFromRow(row),
        target: targetFromRow(row, jobWidth),
      })),
    activeRollouts: async (config) => (await rowsOf(pool, activeRolloutsSql(config))).map(jobFromRow),
    arm,
    act: (id, command, actor, reason) =>
      transition(id, command, actor, reason, async (client, job, at) => {
        const rollout = rollsOut(job.action);
        switch (command) {
          case 'pause':
            return { paused_at: at };
          case 'resume': {
            if (!rollout) return { gate: null };
            // The operator resumes having seen the failures: they are accepted, and the gates count
            // only targets beyond them (docs/jobs.md "Gates").
            const acknowledged = acknowledgedOf(countTargets(await rowsOf(client, targetCountsSql(id))));
            return {
              gate: null,
              acknowledged: JSON.stringify(acknowledged),
              event: { note: acknowledgedText(acknowledged), details: { acknowledged } },
            };
          }
          case 'cancel':
            // Nothing more goes out: targets not released end here; for a restart, commands not
            // yet sent too. A rollout's reached targets keep the revision they received.
            await client.query(
              closeTargetsSql(
                id,
                rollout ? ['pending'] : ['pending', 'in_flight'],
                'cancelled',
                'job cancelled',
                at,
              ),
            );
            return { cancelled_at: at };
          case 'rollback':
            await client.query(closeTargetsSql(id, ['pending'], 'cancelled', 'job rolled back', at));
            await client.query(
              closeTargetsSql(
                id,
                ['in_flight', 'succeeded', 'failed'],
                'rolled_back',
                'returned to the revision it had',
                at,
              ),
            );
            return { finished_at: at };
          case 'promote': {
            // The decision makes the revision current for every agent, in this transaction.
            const { config, revision } = job.action_config as { config: string; revision: number };
            if (!(await makeCurrentIn(client, config, revision, at)))
              return { refused: `config ${config} is gone: roll the job back or cancel it` };
            return { finished_at: at };
          }
          default: {
            const _exhaustive: never = command;
            return {};
          }
        }
      }),
    async counts() {
      const jobs = Object.fromEntries(
        (await rowsOf(pool, statusCountsSql())).map((r) => [r[0] as string, r[1] as number]),
      );
      const targets = (await rowsOf(pool, targetCountsByActionSql())).map((r) => ({
        action: r[0] as string,
        state: r[1] as string,
        n: r[2] as number,
      }));
      return { jobs, targets };
    },
  };
}
