// GET /jobs and GET /partials/jobs: the jobs, newest first, each with its status, its targets as a
// bar, when it was created and last moved, and who submitted it; `?status=S` keeps one status. The
// fragment polls every ui.poll_interval. Jobs need persistence: without database.host the page says
// so (and does not poll); a store that cannot be read is a banner inside the fragment, which goes
// away by itself once the store answers again.

import type Router from '@koa/router';
import { jobStatuses, type JobStatus } from '../../projections/jobs/jobLifecycle.ts';
import type { Job } from '../../projections/jobs/jobStore.ts';
import { queryString } from './fleetRequest.ts';
import { jobStatusLabels } from './jobLabels.ts';
import { jobRow } from './jobModel.ts';
import { sendHtml, type PagesDeps } from './pageContext.ts';
import { mayEdit } from './pageWriter.ts';

function parseStatus(params: URLSearchParams): { status?: JobStatus; error?: string } {
  const given = params.get('status') ?? '';
  if (given === '') return {};
  if (jobStatuses.includes(given as JobStatus)) return { status: given as JobStatus };
  return { error: `status must be one of ${jobStatuses.join(', ')}, got ${JSON.stringify(given)}` };
}

async function listLocals(deps: PagesDeps, params: URLSearchParams, writer: boolean) {
  const { status, error } = parseStatus(params);
  const query = new URLSearchParams(status === undefined ? {} : { status });
  let jobs: Job[] = [];
  let unavailable = false;
  if (deps.jobs !== undefined && error === undefined) {
    try {
      jobs = await deps.jobs.list(status);
    } catch (err) {
      deps.logger.error({ err }, 'jobs read failed; showing the jobs page without jobs');
      unavailable = true;
    }
  }
  return {
    now: deps.now(),
    enabled: deps.jobs !== undefined,
    pollUrl: deps.jobs === undefined ? '' : `/partials/jobs${queryString(query)}`,
    status: status ?? '',
    statusLabel: status === undefined ? '' : jobStatusLabels[status],
    statuses: jobStatuses.map((s) => ({ value: s, label: jobStatusLabels[s] })),
    rows: jobs.map(jobRow),
    jobsUiHref: deps.jobsUiHref ?? '',
    // Texts follow the reader's role: an admin can roll out from a config's page.
    writer,
    unavailable,
    error,
  };
}

export function mountJobsPage(router: Router, deps: PagesDeps): void {
  router.get('/jobs', async (ctx) => {
    const locals = await listLocals(deps, new URLSearchParams(ctx.querystring), mayEdit(ctx));
    const html = deps.render('jobs', { title: 'Jobs', nav: 'jobs', ...locals });
    sendHtml(ctx, locals.error === undefined ? 200 : 400, html);
  });
  router.get('/partials/jobs', async (ctx) => {
    const locals = await listLocals(deps, new URLSearchParams(ctx.querystring), mayEdit(ctx));
    sendHtml(ctx, locals.error === undefined ? 200 : 400, deps.render('partials/jobs', locals));
  });
}
