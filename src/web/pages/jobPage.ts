// GET /jobs/{id} and GET /partials/jobs/{id}: one job, live. The fragment holds everything that
// changes (status, stage, buttons, gate, bars, targets, events) and polls every ui.poll_interval
// while the job is armed, running or paused; a finished job's fragment stops polling. An unknown
// id is a 404 page; without persistence the page says jobs need database.host (503); a job the
// database cannot give now is a 503 page that says so (a polling fragment's 503 is not swapped in,
// so the page keeps what it showed and picks up again once the database answers).

import { isJobId } from '../write/jobCommands.ts';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { rollsOut } from '../../projections/jobs/jobActions.ts';
import type { JobControl } from '../../projections/jobs/jobStore.ts';
import { mayWrite } from '../auth.ts';
import { jobPageLocals, nameFrom } from './jobPageModel.ts';
import { parseJobQuery, targetPageSize, type JobQuery } from './jobQuery.ts';
import { sendHtml, type PagesDeps } from './pageContext.ts';

/** The job page's live locals, or undefined when there is no such job. Store errors reject. */
export async function jobLocals(
  deps: PagesDeps,
  jobs: JobControl,
  id: string,
  query: JobQuery,
  writable: boolean,
) {
  if (!isJobId(id)) return undefined;
  const job = await jobs.get(id);
  if (job === undefined) return undefined;
  const rollout = rollsOut(job.action);
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

const absences = {
  missing: {
    status: 404,
    title: 'Job not found',
    text: 'No job has this id.',
  },
  off: {
    status: 503,
    title: 'Jobs need a database',
    text: 'Jobs are kept in PostgreSQL: set database.host to record and run them.',
  },
  unreadable: {
    status: 503,
    title: 'Job unavailable',
    text: 'The job could not be read from the database; reload this page once it answers again.',
  },
} as const;

/** Why there is no job to show: no such job, no persistence, or a database that does not answer. */
export type JobAbsence = keyof typeof absences;

/** The page or fragment that says why no job is shown, with its status (404 or 503). */
export function sendJobAbsent(ctx: Context, deps: PagesDeps, fragment: boolean, why: JobAbsence): void {
  const { status, title, text } = absences[why];
  const missing = {
    id: fragment ? 'job-live' : 'job-detail',
    title,
    text,
    href: '/jobs',
    link: 'Back to the jobs',
  };
  const view = fragment ? 'partials/notFound' : 'notFound';
  sendHtml(ctx, status, deps.render(view, { title, nav: 'jobs', now: deps.now(), missing }));
}

/** jobLocals, with a store failure logged and answered as the "unavailable" page or fragment. */
export async function readJobLocals(
  ctx: Context,
  deps: PagesDeps,
  jobs: JobControl,
  id: string,
  query: JobQuery,
  fragment: boolean,
) {
  try {
    const locals = await jobLocals(deps, jobs, id, query, mayWrite(ctx, deps.allowUnauthenticatedWrites));
    if (locals === undefined) sendJobAbsent(ctx, deps, fragment, 'missing');
    return locals;
  } catch (err) {
    deps.logger.error({ err, job: id }, 'job read failed; answering 503');
    sendJobAbsent(ctx, deps, fragment, 'unreadable');
    return undefined;
  }
}

export function mountJobPage(router: Router, deps: PagesDeps): void {
  async function answer(ctx: Context, id: string, fragment: boolean) {
    if (deps.jobs === undefined) return sendJobAbsent(ctx, deps, fragment, 'off');
    const query = parseJobQuery(new URLSearchParams(ctx.querystring));
    const locals = await readJobLocals(ctx, deps, deps.jobs, id, query, fragment);
    if (locals === undefined) return;
    const status = query.error === undefined ? 200 : 400;
    if (fragment) return sendHtml(ctx, status, deps.render('partials/job', locals));
    sendHtml(ctx, status, deps.render('job', { nav: 'jobs', notice: undefined, ...locals }));
  }
  router.get('/jobs/:id', (ctx) => answer(ctx, ctx.params.id ?? '', false));
  router.get('/partials/jobs/:id', (ctx) => answer(ctx, ctx.params.id ?? '', true));
}
