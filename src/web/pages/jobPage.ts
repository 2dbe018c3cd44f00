// GET /jobs/{id} and GET /partials/jobs/{id}: one job, live. The fragment holds everything that
// changes (status, stage, buttons, gate, bars, targets, events) and polls every ui.poll_interval
// while the job is armed, running or paused; a finished job's fragment stops polling. An unknown
// id is a 404 page; without persistence the page says jobs need database.host (503).

import type Router from '@koa/router';
import type { Context } from 'koa';
import type { JobControl } from '../../persistence/jobs/jobStore.ts';
import { mayWrite } from '../auth.ts';
import { jobPageLocals, nameFrom } from './jobPageModel.ts';
import { parseJobQuery, targetPageSize, type JobQuery } from './jobQuery.ts';
import { sendHtml, type PagesDeps } from './pageContext.ts';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The job page's live locals, or undefined when there is no such job. Store errors reject. */
export async function jobLocals(
  deps: PagesDeps,
  jobs: JobControl,
  id: string,
  query: JobQuery,
  writable: boolean,
) {
  if (!uuid.test(id)) return undefined;
  const job = await jobs.get(id);
  if (job === undefined) return undefined;
  const rollout = job.action === 'config_rollout';
  const [targets, events, byStage] = await Promise.all([
    query.error === undefined
      ? jobs.targets(id, { limit: targetPageSize, offset: query.offset }, query.state)
      : Promise.resolve([]),
    jobs.events(id),
    rollout ? jobs.targetsByStage(id) : Promise.resolve([]),
  ]);
  return jobPageLocals({ job, targets, events, byStage }, query, {
    now: deps.now(),
    writable,
    nameOf: nameFrom((uid) => deps.registry.get(uid)),
  });
}

const jobMissing = {
  title: 'Job not found',
  text: 'No job has this id.',
  href: '/jobs',
  link: 'Back to the jobs',
};

const jobsOff = {
  title: 'Jobs need a database',
  text: 'Jobs are kept in PostgreSQL: set database.host to record and run them.',
  href: '/jobs',
  link: 'Back to the jobs',
};

/** The 404 (no such job) or 503 (no persistence) page or fragment. */
export function sendJobMissing(ctx: Context, deps: PagesDeps, fragment: boolean, off = false): void {
  const missing = { id: fragment ? 'job-live' : 'job-detail', ...(off ? jobsOff : jobMissing) };
  const view = fragment ? 'partials/notFound' : 'notFound';
  sendHtml(
    ctx,
    off ? 503 : 404,
    deps.render(view, { title: missing.title, nav: 'jobs', now: deps.now(), missing }),
  );
}

export function mountJobPage(router: Router, deps: PagesDeps): void {
  async function answer(ctx: Context, id: string, fragment: boolean) {
    if (deps.jobs === undefined) return sendJobMissing(ctx, deps, fragment, true);
    const query = parseJobQuery(new URLSearchParams(ctx.querystring));
    const writable = mayWrite(ctx, deps.allowUnauthenticatedWrites);
    const locals = await jobLocals(deps, deps.jobs, id, query, writable);
    if (locals === undefined) return sendJobMissing(ctx, deps, fragment);
    const status = query.error === undefined ? 200 : 400;
    if (fragment) return sendHtml(ctx, status, deps.render('partials/job', locals));
    sendHtml(ctx, status, deps.render('job', { nav: 'jobs', notice: undefined, ...locals }));
  }
  router.get('/jobs/:id', (ctx) => answer(ctx, ctx.params.id ?? '', false));
  router.get('/partials/jobs/:id', (ctx) => answer(ctx, ctx.params.id ?? '', true));
}
