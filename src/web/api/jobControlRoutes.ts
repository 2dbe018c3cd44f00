// Reading jobs and making them act (docs/jobs.md "API"): GET /api/jobs (?status=), GET /api/jobs/{id}
// (counts, a page of targets, the events), and POST /api/jobs/{id}/arm, /pause, /resume, /cancel,
// /rollback. Jobs need persistence (503 without, SPEC durability rule 1). Every command needs an
// admin identity, or an anonymous request with auth.allow_unauthenticated_writes (403 otherwise),
// and is recorded with its actor; a move the job's status does not allow is 409 with that status.

import type { Context } from 'koa';
import { parseActionSettings, type ActionSettings } from '../../projections/jobs/jobActions.ts';
import { jobStatuses, type JobStatus } from '../../projections/jobs/jobLifecycle.ts';
import type { ActOutcome, Job, JobControl, TargetState } from '../../persistence/jobs/jobStore.ts';
import { targetStates } from '../../persistence/jobs/jobStore.ts';
import { authorizeWrite } from '../auth.ts';
import { parsePage } from '../query/page.ts';
import { TargetError } from '../read/jobTargets.ts';
import { jobView } from '../views/jobView.ts';
import type { ApiDeps, ApiRouter } from './apiDeps.ts';
import { sendJson } from './jsonResponse.ts';
import { readJsonBody } from './readJsonBody.ts';

const maxCommandBytes = 16 * 1024;

async function commandBody(ctx: Context): Promise<Record<string, unknown>> {
  const body = await readJsonBody(ctx.req, maxCommandBytes, { allowEmpty: true });
  if (!body.ok) return ctx.throw(body.status, body.error);
  const value = body.value ?? {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return ctx.throw(400, 'request body must be a JSON object');
  return value as Record<string, unknown>;
}

export function jobControlRoutes(router: ApiRouter, deps: ApiDeps): void {
  function control(ctx: Context): JobControl {
    if (deps.jobs === undefined)
      return ctx.throw(503, 'jobs need persistence: database.host is not set', { expose: true });
    return deps.jobs;
  }

  function actor(ctx: Context): string {
    const auth = authorizeWrite(ctx, deps.allowUnauthenticatedWrites);
    if (!auth.ok) return ctx.throw(auth.status, auth.error);
    return auth.author;
  }

  function answer(ctx: Context, outcome: ActOutcome, command: string, who: string): void {
    if (!outcome.ok) {
      if (outcome.status === 409 && outcome.job !== undefined) {
        sendJson(ctx, 409, { error: outcome.error, status: outcome.job.status });
        return;
      }
      return ctx.throw(outcome.status, outcome.error);
    }
    deps.logger.info(
      { actor: who, action: command, job: outcome.job.id, status: outcome.job.status },
      'job command',
    );
    sendJson(ctx, 200, jobView(outcome.job));
  }

  router.get('/api/jobs', async (ctx) => {
    const jobs = control(ctx);
    const status = new URLSearchParams(ctx.querystring).get('status');
    if (status !== null && !jobStatuses.includes(status as JobStatus))
      return ctx.throw(400, `status must be one of ${jobStatuses.join(', ')}`);
    sendJson(ctx, 200, {
      jobs: (await jobs.list(status === null ? undefined : (status as JobStatus))).map(jobView),
    });
  });

  router.get('/api/jobs/:id', async (ctx) => {
    const jobs = control(ctx);
    const id = ctx.params.id ?? '';
    const params = new URLSearchParams(ctx.querystring);
    const page = parsePage(params);
    if (!page.ok) return ctx.throw(400, page.error);
    const state = params.get('state');
    if (state !== null && !targetStates.includes(state as TargetState))
      return ctx.throw(400, `state must be one of ${targetStates.join(', ')}`);
    const job = await jobs.get(id).catch(() => undefined);
    if (job === undefined) return ctx.throw(404, `no job ${id}`);
    const [targets, events] = await Promise.all([
      jobs.targets(id, page.page, state === null ? undefined : (state as TargetState)),
      jobs.events(id),
    ]);
    sendJson(ctx, 200, {
      ...jobView(job),
      targets,
      events,
      limit: page.page.limit,
      offset: page.page.offset,
    });
  });

  /** Checks a rollout can start: a draft newer than the current revision, and no other rollout of it. */
  async function rolloutProblem(
    job: Job,
    settings: ActionSettings,
  ): Promise<{ status: 400 | 409; error: string } | undefined> {
    if (settings.action !== 'config_rollout') return undefined;
    if (deps.configs.source !== 'database')
      return { status: 409, error: 'rollouts need remote configs in the database (not remote_config.dir)' };
    const summary = await deps.configs.get(settings.config);
    if (summary === undefined) return { status: 400, error: `no config ${settings.config}` };
    if ((await deps.configs.revision(settings.config, settings.revision)) === undefined)
      return { status: 400, error: `config ${settings.config} has no revision ${settings.revision}` };
    if (settings.revision <= (summary.current?.revision ?? 0))
      return {
        status: 400,
        error: `revision ${settings.revision} is not a draft newer than the current revision ${summary.current?.revision}`,
      };
    const active = (await deps.jobs?.activeRollouts(settings.config))?.filter((j) => j.id !== job.id) ?? [];
    if (active.length > 0)
      return { status: 409, error: `job ${active[0]!.id} is already rolling out ${settings.config}` };
    return undefined;
  }

  router.post('/api/jobs/:id/arm', async (ctx) => {
    const jobs = control(ctx);
    const who = actor(ctx);
    const body = await commandBody(ctx);
    const id = ctx.params.id ?? '';
    const job = await jobs.get(id).catch(() => undefined);
    if (job === undefined) return ctx.throw(404, `no job ${id}`);
    if (job.status !== 'planned') {
      sendJson(ctx, 409, { error: `job ${id} is ${job.status}: it cannot arm`, status: job.status });
      return;
    }
    const targetMode = body.target_mode ?? 'snapshot';
    if (targetMode !== 'snapshot' && targetMode !== 'live')
      return ctx.throw(400, 'target_mode must be snapshot or live');
    const at = body.dispatch_at ?? null;
    if (at !== null && typeof at !== 'string') return ctx.throw(400, 'dispatch_at must be an ISO 8601 time');
    const dispatchAt = at === null ? deps.now() : Date.parse(at);
    if (Number.isNaN(dispatchAt)) return ctx.throw(400, 'dispatch_at must be an ISO 8601 time');
    const settings = parseActionSettings(job.action, job.action_config);
    if (!settings.ok) return ctx.throw(400, settings.error);
    const problem = await rolloutProblem(job, settings.value);
    if (problem !== undefined) return ctx.throw(problem.status, problem.error);
    let targets;
    try {
      targets = await deps.resolveTargets!(job, settings.value);
    } catch (error) {
      if (error instanceof TargetError) return ctx.throw(400, error.message);
      throw error;
    }
    const fromRevision =
      settings.value.action === 'config_rollout'
        ? ((await deps.configs.get(settings.value.config))?.current?.revision ?? null)
        : null;
    answer(
      ctx,
      await jobs.arm(id, { actor: who, targetMode, dispatchAt, targets, fromRevision }),
      'arm',
      who,
    );
  });

  for (const command of ['pause', 'resume', 'cancel', 'rollback'] as const) {
    router.post(`/api/jobs/:id/${command}`, async (ctx) => {
      const jobs = control(ctx);
      const who = actor(ctx);
      const body = await commandBody(ctx);
      const id = ctx.params.id ?? '';
      if (command === 'rollback') {
        const job = await jobs.get(id).catch(() => undefined);
        if (job !== undefined && job.action !== 'config_rollout') {
          sendJson(ctx, 409, {
            error: `job ${id} is a ${job.action}: only config rollouts roll back`,
            status: job.status,
          });
          return;
        }
      }
      const reason = typeof body.reason === 'string' ? body.reason : `${command} by ${who}`;
      answer(ctx, await jobs.act(id, command, who, reason), command, who);
    });
  }
}
