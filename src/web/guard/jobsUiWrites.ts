// The job-queue dashboard (/jobs-ui) can cancel, delete and retry jobs, unschedule the purge and
// create queues: the same power over the service as a job action, so the same write rule. Viewers
// and anonymous callers (unless auth.allow_unauthenticated_writes) read it only; the request guard
// has already refused writes from other sites.

import type { Context, Middleware, Next } from 'koa';
import { isRead, mayWrite } from '../auth.ts';
import { sendRefusal } from './refusal.ts';

const under = (path: string, base: string) => path === base || path.startsWith(`${base}/`);

export function jobsUiWriteRule(base: string, allowUnauthenticatedWrites: boolean): Middleware {
  return async (ctx: Context, next: Next) => {
    if (under(ctx.path, base) && !isRead(ctx.method) && !mayWrite(ctx, allowUnauthenticatedWrites)) {
      const error = `the job-queue UI is read-only for this caller: its actions need an admin token or certificate${allowUnauthenticatedWrites ? '' : ' (auth.allow_unauthenticated_writes is false)'}`;
      sendRefusal(ctx, 403, 'jobs_ui_write', error);
      return;
    }
    await next();
  };
}
