// Reading jobs and making them act (docs/jobs.md "API"): GET /api/jobs (?status=), GET /api/jobs/{id}
// (counts, a page of targets, the events), and POST /api/jobs/{id}/arm, /pause, /resume, /cancel,
// /rollback, /promote, whose checks live in write/jobCommands.ts (shared with the job page's buttons). Jobs
// need persistence (503 without, SPEC durability rule 1). Every command needs an admin identity, or
// an anonymous request with auth.allow_unauthenticated_writes (403 otherwise), and is recorded with
// its actor; a move the job's status does not allow is 409 with that status.

import type { Context } from 'koa';
import { jobStatuses, operatorCommands, type JobStatus } from '../../projections/jobs/jobLifecycle.ts';
import type { JobControl, TargetState } from '../../projections/jobs/jobStore.ts';
import { targetStates } from '../../projections/jobs/jobStore.ts';
import { authorizeWrite } from '../auth.ts';
import { parsePage } from '../query/page.ts';
import { jobView } from '../views/jobView.ts';
import { createJobCommands, type CommandOutcome, type JobCommands } from '../write/jobCommands.ts';
import type { ApiDeps, ApiRouter } from './apiDeps.ts';
import { sendJson } from './jsonResponse.ts';
import { readJsonRequest } from './readJsonBody.ts';

export const maxCommandBytes = 16 * 1024;

async function commandBody(ctx: Context): Promise<Record<string, unknown>> {
  const value = (await readJsonRequest(ctx, maxCommandBytes, { allowEmpty: true })) ?? {};
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

  const commands =
    deps.jobs === undefined || deps.resolveTargets === undefined
      ? undefined
      : createJobCommands({
          jobs: deps.jobs,
          configs: deps.configs,
          resolveTargets: deps.resolveTargets,
          now: deps.now,
        });
  function commandsOf(ctx: Context): JobCommands {
    control(ctx);
    if (commands === undefined) return ctx.throw(503, 'jobs cannot act without a target resolver');
    return commands;
  }

  function actor(ctx: Context): string {
    const auth = authorizeWrite(ctx, deps.allowUnauthenticatedWrites);
    if (!auth.ok) return ctx.throw(auth.status, auth.error);
    return auth.author;
  }

  function answer(ctx: Context, outcome: CommandOutcome, command: string, who: string): void {
    if (!outcome.ok) {
      if (outcome.status === 409 && outcome.current !== undefined) {
        sendJson(ctx, 409, { error: outcome.error, status: outcome.current });
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

  router.post('/api/jobs/:id/arm', async (ctx) => {
    const commands = commandsOf(ctx);
    const who = actor(ctx);
    const body = await commandBody(ctx);
    const id = ctx.params.id ?? '';
    answer(ctx, await commands.arm(id, who, body), 'arm', who);
  });

  for (const command of operatorCommands) {
    router.post(`/api/jobs/:id/${command}`, async (ctx) => {
      const commands = commandsOf(ctx);
      const who = actor(ctx);
      const body = await commandBody(ctx);
      const id = ctx.params.id ?? '';
      const reason = typeof body.reason === 'string' ? body.reason : `${command} by ${who}`;
      answer(ctx, await commands.act(id, command, who, reason), command, who);
    });
  }
}
