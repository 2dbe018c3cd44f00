// POST /api/jobs: the only mutating endpoint. Order of checks: persistence (503, SPEC durability
// rule 1), then the body (413 over 64 KiB, 400 malformed or invalid), then the JobStore (500 on a
// backend error). Jobs are recorded, never dispatched.

import type { Job } from '../../projections/jobs/jobStore.ts';
import type { ApiDeps, ApiRouter } from './apiDeps.ts';
import { sendJson } from './jsonResponse.ts';
import { validateNewJob } from './newJob.ts';
import { readJsonRequest } from './readJsonBody.ts';

export const maxJobBodyBytes = 64 * 1024;

export function jobRoutes(router: ApiRouter, deps: ApiDeps): void {
  router.post('/api/jobs', async (ctx) => {
    const store = deps.jobStore;
    if (store === undefined)
      return ctx.throw(503, 'jobs need persistence: database.host is not set', { expose: true });
    const valid = validateNewJob(await readJsonRequest(ctx, maxJobBodyBytes));
    if (!valid.ok) return ctx.throw(400, valid.error);
    let job: Job;
    try {
      job = await store.create(valid.job);
    } catch (error) {
      deps.logger.error({ err: error }, 'job store create failed');
      return ctx.throw(500, 'could not create the job', { expose: true });
    }
    sendJson(ctx, 201, job);
  });
}
