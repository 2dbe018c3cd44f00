// Advances jobs (docs/jobs.md "Across replicas"): every step of a job is a pg-boss job on the queue
// `job-steps` with the job's id as its singleton key under the `stately` policy, so at most one step
// of a job is active anywhere and one more may wait. A step loads the locked job and what it decides
// on (target counts; for a live job its matching agents not yet targets; when a gate may trip, who
// is behind each), asks decideStep what to do, applies the answer in the same transaction, and
// publishes the decision's events only after the commit (a step that rolls back published
// nothing). A replica that dies mid-step (SIGKILL) leaves its step active until it expires, and
// another replica runs it again: a step is idempotent, it reads everything it decides from the rows.
// While a job is armed or running, each step asks for the next one (at dispatch_at, or a second
// later); lifecycle commands and target outcomes ask for one at once.

import type { PgBoss } from 'pg-boss';
import type pg from 'pg';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { Logger } from '../../io/logger.ts';
import {
  decideStep,
  timeOutOf,
  type Deadline,
  type JobMove,
  type StepDecision,
  type StepJob,
} from '../../projections/jobs/decideStep.ts';
import { parseActionSettings, type ActionSettings, type Checked } from '../../projections/jobs/jobActions.ts';
import {
  mayPassOffline,
  mayTrip,
  takesNewcomers,
  type StepTargets,
} from '../../projections/jobs/stepTargets.ts';
import type { Job, TargetCandidate } from '../../projections/jobs/jobStore.ts';
import { notifySql } from '../database/notifications.ts';
import type { Sql } from '../database/sql.ts';
import { inTransaction } from '../database/transaction.ts';
import { countTargets } from './jobCounts.ts';
import { makeCurrentIn } from './promotion.ts';
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
import { stepQueue, type RequestStep } from './stepRequests.ts';
import type { Lateness } from './lateSql.ts';
import {
  behindGatesSql,
  newcomersSql,
  offlineTargetsSql,
  releaseTargetsSql,
  timeOutTargetsSql,
} from './jobStepSql.ts';

export interface JobStepperDeps {
  readonly pool: pg.Pool;
  readonly boss: PgBoss;
  readonly now: () => number;
  readonly logger: Logger;
  readonly requestStep: RequestStep;
  /** A live job's targets now (agents that started matching join it). */
  readonly resolveTargets: (job: Job, settings: ActionSettings) => Promise<TargetCandidate[]>;
  /**
   * Called after a step committed that made a rollout's revision current: this replica reloads its
   * configs in force (publishing RemoteConfigChanged); siblings hear of it through NOTIFY svc_configs.
   */
  readonly configsChanged: () => Promise<void>;
  /** The bus: a step's events (JobGateTripped) are published after its transaction committed. */
  readonly publish: (event: FleetEvent) => void;
  /** Rule 10's threshold: a session row not refreshed within it no longer says connected. */
  readonly disconnectAfterMs: number;
}

export interface JobStepper {
  /** Works the step queue (after migrations and pg-boss are up). */
  start(): Promise<void>;
  /** Runs one step now, outside the queue (specs). */
  step(jobId: string): Promise<void>;
}

const rowsOf = async (client: pg.ClientBase, sql: Sql) =>
  (await client.query<unknown[]>({ text: sql.text, values: sql.values, rowMode: 'array' })).rows;

const stepJobOf = (job: Job, row: readonly unknown[]): StepJob => ({
  id: job.id,
  status: job.status,
  stage: job.stage ?? 0,
  stageAt: stageAtOf(row),
  dueAt: Date.parse(job.dispatch_at ?? job.armed_at ?? job.created_at),
  live: job.target_mode === 'live',
  ...(job.acknowledged !== undefined && { acknowledged: job.acknowledged }),
});

export function createJobStepper(deps: JobStepperDeps): JobStepper {
  const { pool, boss, now, logger, requestStep } = deps;

  const latenessOf = (d: Deadline, at: number): Lateness => ({
    before: d.before,
    unsentBefore: d.unsentBefore,
    now: at,
    disconnectAfterMs: deps.disconnectAfterMs,
  });

  /** Records a move of the locked job (a trip with its gate, as decided). */
  async function applyMove(client: pg.ClientBase, jobId: string, m: JobMove, at: number): Promise<void> {
    const changes: JobChanges =
      m.gate === undefined ? m.changes : { ...m.changes, gate: JSON.stringify(m.gate) };
    await client.query(updateJobSql(jobId, m.to, changes, at));
    const event = { jobId, at, actor: 'service', kind: m.command, from: m.from, to: m.to, reason: m.reason };
    await client.query(insertEventSql({ ...event, details: m.gate }));
  }

  /** Applies a decision to the locked job, in the caller's transaction. */
  async function apply(client: pg.ClientBase, job: StepJob, d: StepDecision, at: number): Promise<void> {
    if (d.joins.length > 0) await client.query(insertTargetsSql(job.id, d.joins, at));
    if (d.timeOut !== undefined)
      await client.query(timeOutTargetsSql(job.id, latenessOf(d.timeOut, at), d.timeOut, at));
    if (
      d.makeCurrent !== undefined &&
      !(await makeCurrentIn(client, d.makeCurrent.config, d.makeCurrent.revision, at))
    )
      logger.warn({ job: job.id, config: d.makeCurrent.config }, 'rollout finished, but its config is gone');
    for (const m of d.moves) await applyMove(client, job.id, m, at);
    for (const r of d.releases) await client.query(releaseTargetsSql(job.id, r.count, r.stage, at));
    const status = d.moves.at(-1)?.to ?? job.status;
    if (d.stage !== undefined) {
      await client.query(updateJobSql(job.id, status, { stage: d.stage.stage, stage_at: at }, at));
      if (d.stage.note !== undefined) {
        const note = { jobId: job.id, at, actor: 'service', kind: 'stage', from: null, to: null };
        await client.query(insertEventSql({ ...note, reason: d.stage.note }));
      }
    }
    if (d.joins.length > 0 || d.timeOut !== undefined || d.moves.length > 0 || d.releases.length > 0) {
      await client.query(
        saveCountsSql(job.id, countTargets(await rowsOf(client, targetCountsSql(job.id))).byState),
      );
      await client.query(notifySql(jobsChannel, job.id));
    }
  }

  /** What the step decides on besides the job: its targets, and what the decision may need of them. */
  async function loadTargets(
    client: pg.ClientBase,
    job: StepJob,
    settings: Checked<ActionSettings>,
    matching: readonly TargetCandidate[] | undefined,
    at: number,
  ): Promise<StepTargets> {
    const late = settings.ok ? latenessOf(timeOutOf(settings.value, at), at) : undefined;
    const counts = countTargets(await rowsOf(client, targetCountsSql(job.id, late)));
    let newcomers: TargetCandidate[] | undefined;
    if (matching !== undefined && matching.length > 0 && takesNewcomers(job)) {
      const rows = await rowsOf(
        client,
        newcomersSql(
          job.id,
          matching.map((t) => t.uid),
        ),
      );
      const fresh = new Set(rows.map((r) => r[0] as string));
      newcomers = matching.filter((t) => fresh.has(t.uid));
    }
    let offline: number | undefined;
    if (late !== undefined && mayPassOffline(job, settings, counts)) {
      const [row] = await rowsOf(client, offlineTargetsSql(job.id, late));
      offline = row?.[0] as number;
    }
    const loaded: StepTargets = {
      counts,
      ...(newcomers !== undefined && { newcomers }),
      ...(offline !== undefined && { offline }),
    };
    if (!mayTrip(settings, counts)) return loaded;
    const [row] = await rowsOf(client, behindGatesSql(job.id, late));
    const [failed = [], unhealthy = [], disconnected = []] = (row ?? []) as string[][];
    return {
      ...loaded,
      behind: { max_failed: failed, max_unhealthy: unhealthy, max_disconnected: disconnected },
    };
  }

  async function stepLocked(
    client: pg.ClientBase,
    jobId: string,
    matching: TargetCandidate[] | undefined,
  ): Promise<StepDecision | undefined> {
    const [row] = await rowsOf(client, jobSql(jobId, { forUpdate: true }));
    if (row === undefined) return undefined;
    const record = jobFromRow(row);
    if (record.status !== 'armed' && record.status !== 'running') return undefined;
    const at = now();
    const settings = parseActionSettings(record.action, record.action_config);
    const job = stepJobOf(record, row);
    const targets = await loadTargets(client, job, settings, matching, at);
    const decision = decideStep(job, targets, settings, at);
    // Outcomes written since the last step change the counts the lists and metrics show.
    await client.query(saveCountsSql(jobId, targets.counts.byState));
    await apply(client, job, decision, at);
    return decision;
  }

  async function step(jobId: string): Promise<void> {
    // A live job's matching agents are read before the lock is taken (it reads the fleet); which of
    // them join is decided under the lock.
    let matching: TargetCandidate[] | undefined;
    const [row] = (await pool.query<unknown[]>({ ...jobSql(jobId), rowMode: 'array' })).rows;
    const job = row && jobFromRow(row);
    if (row !== undefined && job !== undefined && takesNewcomers(stepJobOf(job, row))) {
      const settings = parseActionSettings(job.action, job.action_config);
      if (settings.ok) matching = await deps.resolveTargets(job, settings.value);
    }
    const decision = await inTransaction(pool, (client) => stepLocked(client, jobId, matching));
    // Only now, after the commit, is a promotion or a trip anyone's fact (docs/jobs.md).
    if (decision?.makeCurrent !== undefined)
      await deps
        .configsChanged()
        .catch((error: unknown) => logger.warn({ err: error }, 'remote config reload failed; retried'));
    for (const event of decision?.events ?? []) deps.publish(event);
    if (decision?.nextMs !== undefined) await requestStep(jobId, decision.nextMs);
  }

  return {
    async start() {
      await boss.createQueue(stepQueue, { policy: 'stately' });
      await boss.work<{ jobId: string }>(
        stepQueue,
        { pollingIntervalSeconds: 0.5, batchSize: 1 },
        async ([work]) => {
          if (work === undefined) return;
          // pg-boss records a failed step and retries it; the log says why it failed.
          await step(work.data.jobId).catch((error: unknown) => {
            logger.warn({ err: error, job: work.data.jobId }, 'job step failed; retried');
            throw error;
          });
        },
      );
    },
    step,
  };
}
