// Advances jobs (docs/jobs.md "Across replicas"): every step of a job is a pg-boss job on the queue
// `job-steps` with the job's id as its singleton key under the `stately` policy, so at most one step
// of a job is active anywhere and one more may wait; a step runs in one transaction that locks the
// job row. A replica that dies mid-step (SIGKILL) leaves its step active until it expires, and
// another replica runs it again: a step is idempotent, it reads everything it decides from the rows.
// While a job is armed or running, each step asks for the next one (at dispatch_at, or a second
// later); lifecycle commands and target outcomes ask for one at once.

import type { PgBoss } from 'pg-boss';
import type pg from 'pg';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { Logger } from '../../io/logger.ts';
import {
  parseActionSettings,
  type ActionSettings,
  type RestartSettings,
  type RolloutSettings,
} from '../../projections/jobs/jobActions.ts';
import { nextStatus, type JobCommand } from '../../projections/jobs/jobLifecycle.ts';
import { restartBatchSize } from '../../projections/jobs/restartPlan.ts';
import { planRollout, trippedGate } from '../../projections/jobs/rolloutPlan.ts';
import { notifySql } from '../database/notifications.ts';
import type { Sql } from '../database/sql.ts';
import { inTransaction } from '../database/transaction.ts';
import { countTargets, type TargetCounts } from './jobCounts.ts';
import { jobFromRow, stageAtOf } from './jobRows.ts';
import {
  insertEventSql,
  insertTargetsSql,
  jobSql,
  jobsChannel,
  saveCountsSql,
  targetCountsSql,
  updateJobSql,
  type JobChanges,
} from './jobSql.ts';
import { gateAgentsSql, releaseTargetsSql, timeOutTargetsSql } from './jobStepSql.ts';
import type { Job, TargetCandidate } from '../../projections/jobs/jobStore.ts';

export const stepQueue = 'job-steps';
const tickMs = 1000;

export interface JobStepperDeps {
  readonly pool: pg.Pool;
  readonly boss: PgBoss;
  readonly now: () => number;
  readonly logger: Logger;
  /** A live job's targets now (agents that started matching join it). */
  readonly resolveTargets: (job: Job, settings: ActionSettings) => Promise<TargetCandidate[]>;
  /** Makes a finished rollout's revision the config's current one. */
  readonly makeCurrent: (config: string, revision: number) => Promise<boolean>;
  /** The bus: JobGateTripped is published where a gate trips. */
  readonly publish: (event: FleetEvent) => void;
}

export interface JobStepper {
  start(): Promise<void>;
  /** Asks for a step of the job now (coalesced with one already waiting). Never rejects. */
  requestStep(jobId: string, afterMs?: number): Promise<void>;
  /** Runs one step now, outside the queue (specs). */
  step(jobId: string): Promise<void>;
}

interface StepResult {
  /** Ask for the next step after this long; undefined: the job waits for a command. */
  readonly nextMs: number | undefined;
}

const rowsOf = async (client: pg.ClientBase, sql: Sql) =>
  (await client.query<unknown[]>({ text: sql.text, values: sql.values, rowMode: 'array' })).rows;

export function createJobStepper(deps: JobStepperDeps): JobStepper {
  const { pool, boss, now, logger } = deps;

  async function requestStep(jobId: string, afterMs = 0): Promise<void> {
    try {
      await boss.send(
        stepQueue,
        { jobId },
        {
          singletonKey: jobId,
          ...(afterMs > 0 && { startAfter: new Date(now() + afterMs) }),
          retryLimit: 1000,
          retryDelay: 1,
          expireInSeconds: 30,
        },
      );
    } catch (error) {
      logger.warn({ err: error, job: jobId }, 'could not schedule a job step; the next tick retries');
    }
  }

  /** Moves the locked job and records why; the caller's transaction commits both. */
  async function move(
    client: pg.ClientBase,
    job: Job,
    command: JobCommand,
    reason: string,
    changes: JobChanges,
    details?: unknown,
  ): Promise<Job> {
    const to = nextStatus(job.status, command)!;
    const at = now();
    await client.query(updateJobSql(job.id, to, changes, at));
    await client.query(
      insertEventSql({
        jobId: job.id,
        at,
        actor: 'service',
        kind: command,
        from: job.status,
        to,
        reason,
        details,
      }),
    );
    return { ...job, status: to };
  }

  async function counted(client: pg.ClientBase, job: Job): Promise<TargetCounts> {
    const counts = countTargets(await rowsOf(client, targetCountsSql(job.id)));
    await client.query(saveCountsSql(job.id, counts.byState));
    return counts;
  }

  async function finish(client: pg.ClientBase, job: Job, counts: TargetCounts): Promise<StepResult> {
    const failed = counts.failed;
    const reason = failed > 0 ? `${failed} target(s) failed` : 'every target succeeded or was skipped';
    await move(client, job, failed > 0 ? 'fail' : 'succeed', reason, { finished_at: now() });
    return { nextMs: undefined };
  }

  async function restartStep(client: pg.ClientBase, job: Job, s: RestartSettings): Promise<StepResult> {
    const at = now();
    await client.query(
      timeOutTargetsSql(job.id, s.reconnectTimeoutMs, 'did not come back within reconnect_timeout', at),
    );
    const counts = await counted(client, job);
    if (counts.byState.in_flight > 0) return { nextMs: tickMs };
    if (counts.byState.pending === 0) return finish(client, job, counts);
    const batch = restartBatchSize(job.stage ?? 0, s.backoffCap, counts.eligible);
    await client.query(releaseTargetsSql(job.id, batch, (job.stage ?? 0) + 1, at));
    await client.query(updateJobSql(job.id, job.status, { stage: (job.stage ?? 0) + 1, stage_at: at }, at));
    await counted(client, job);
    await client.query(notifySql(jobsChannel, job.id));
    return { nextMs: tickMs };
  }

  async function rolloutStep(
    client: pg.ClientBase,
    job: Job,
    stageAt: number,
    s: RolloutSettings,
  ): Promise<StepResult> {
    const at = now();
    await client.query(timeOutTargetsSql(job.id, s.applyTimeoutMs, 'did not apply within apply_timeout', at));
    const counts = await counted(client, job);
    const tripped = trippedGate(s.gates, counts);
    if (tripped !== undefined) {
      const agents = (await rowsOf(client, gateAgentsSql(job.id, tripped.gate))).map((r) => r[0] as string);
      const gate = { ...tripped, agents };
      await move(
        client,
        job,
        'trip',
        `${tripped.gate} exceeded: ${tripped.count} > ${tripped.limit}`,
        { paused_at: at, gate: JSON.stringify(gate) },
        gate,
      );
      deps.publish({ type: 'JobGateTripped', at, data: { jobId: job.id, gate: tripped.gate } });
      return { nextMs: undefined };
    }
    const progress = {
      stage: job.stage ?? 0,
      stageAt,
      total: counts.eligible,
      reached: counts.reached,
      finished: counts.byState.succeeded + counts.byState.failed,
      lastFinishedAt: counts.lastFinishedAt,
    };
    const plan = planRollout(progress, s.stages, s.waitMs, at);
    if (plan.kind === 'wait') return { nextMs: tickMs };
    if (plan.kind === 'finish') {
      if (!(await deps.makeCurrent(s.config, s.revision)))
        logger.warn({ job: job.id, config: s.config }, 'rollout finished, but its config is gone');
      return finish(client, job, counts);
    }
    if (plan.assign > 0) await client.query(releaseTargetsSql(job.id, plan.assign, plan.stage, at));
    await client.query(updateJobSql(job.id, job.status, { stage: plan.stage, stage_at: at }, at));
    await client.query(
      insertEventSql({
        jobId: job.id,
        at,
        actor: 'service',
        kind: 'stage',
        from: null,
        to: null,
        reason: `stage ${plan.stage}: ${plan.assign} more target(s)`,
      }),
    );
    await counted(client, job);
    await client.query(notifySql(jobsChannel, job.id));
    return { nextMs: 0 };
  }

  async function stepLocked(
    client: pg.ClientBase,
    jobId: string,
    joining: TargetCandidate[] | undefined,
  ): Promise<StepResult> {
    const [row] = await rowsOf(client, jobSql(jobId, { forUpdate: true }));
    if (row === undefined) return { nextMs: undefined };
    let job = jobFromRow(row);
    if (job.status !== 'armed' && job.status !== 'running') return { nextMs: undefined };
    const settings = parseActionSettings(job.action, job.action_config);
    if (!settings.ok) {
      // Armed with settings that no longer parse (they were checked at arming): end it, saying why.
      if (job.status === 'armed') job = await move(client, job, 'start', 'started', { started_at: now() });
      await move(client, job, 'fail', settings.error, { finished_at: now() });
      return { nextMs: undefined };
    }
    if (job.status === 'armed') {
      const due = Date.parse(job.dispatch_at ?? job.armed_at ?? job.created_at);
      if (due > now()) return { nextMs: due - now() };
      job = await move(client, job, 'start', 'dispatch_at reached', { started_at: now(), stage_at: now() });
    }
    if (joining !== undefined && joining.length > 0)
      await client.query(insertTargetsSql(job.id, joining, now()));
    return settings.value.action === 'restart'
      ? restartStep(client, job, settings.value)
      : rolloutStep(client, job, stageAtOf(row), settings.value);
  }

  async function step(jobId: string): Promise<void> {
    // Live jobs: look for agents that started matching before taking the lock (it reads the fleet).
    let joining: TargetCandidate[] | undefined;
    const [row] = (await pool.query<unknown[]>({ ...jobSql(jobId), rowMode: 'array' })).rows;
    const job = row && jobFromRow(row);
    if (job?.status === 'running' && job.target_mode === 'live') {
      const settings = parseActionSettings(job.action, job.action_config);
      if (settings.ok) joining = await deps.resolveTargets(job, settings.value);
    }
    const result = await inTransaction(pool, (client) => stepLocked(client, jobId, joining));
    if (result.nextMs !== undefined) await requestStep(jobId, result.nextMs);
  }

  return {
    async start() {
      await boss.createQueue(stepQueue, { policy: 'stately' });
      await boss.work<{ jobId: string }>(
        stepQueue,
        { pollingIntervalSeconds: 0.5, batchSize: 1 },
        async ([work]) => {
          if (work !== undefined) await step(work.data.jobId);
        },
      );
    },
    requestStep,
    step,
  };
}
