// The JSON API under /api (SPEC "UI listener: JSON API"). Mounted first on the UI listener and never
// passing /api/* on, so API routes take precedence over UI routes (SPEC UI rule 6). Every error,
// including unknown paths (404) and wrong methods (405), goes through writeError.

import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { ApiDeps, ApiRouter } from './apiDeps.ts';
import { auditApiRoutes } from '../audit/auditRoutes.ts';
import { agentRoutes } from './agentRoutes.ts';
import { configRoutes } from './configRoutes.ts';
import { configWriteRoutes } from './configWriteRoutes.ts';
import { infoRoutes } from './infoRoutes.ts';
import { jobControlRoutes } from './jobControlRoutes.ts';
import { jobRoutes } from './jobRoutes.ts';
import { openapiRoutes } from './openapiRoutes.ts';
import { revokeRoutes } from './revokeRoutes.ts';
import { writeError } from './jsonResponse.ts';
import { configNameProblem } from '../../projections/remoteConfig/validateConfig.ts';

const isApiPath = (path: string): boolean => path === '/api' || path.startsWith('/api/');

/** Every route of the API (also read by the spec that holds the OpenAPI document to them). */
export function createApiRouter(deps: ApiDeps): ApiRouter {
  const router: ApiRouter = new Router({ strict: true });
  // A name that cannot be a config's names none, and must not reach the database (a NUL byte makes
  // PostgreSQL refuse the query). PUT only updates configs that exist, so it is a 404 there too.
  router.param('name', (name, ctx, next) => {
    if (configNameProblem(name) === undefined) return next();
    return ctx.throw(404, `no config ${name}`);
  });
  agentRoutes(router, deps);
  revokeRoutes(router, deps);
  // Before the read routes: POST /api/configs/preview is not a config named "preview".
  configWriteRoutes(router, deps);
  configRoutes(router, deps);
  infoRoutes(router, deps);
  jobRoutes(router, deps);
  jobControlRoutes(router, deps);
  openapiRoutes(router, deps);
  auditApiRoutes(router, deps.audit);
  return router;
}

export function createApiMiddleware(deps: ApiDeps): Middleware {
  const router = createApiRouter(deps);
  const routes = router.routes() as Middleware;
  const allowedMethods = router.allowedMethods() as Middleware;
  const noop = () => Promise.resolve();

  return async (ctx, next) => {
    if (!isApiPath(ctx.path)) {
      await next();
      return;
    }
    try {
      // routes() calls its next only when no route took the request; allowedMethods then sets 405/501.
      await routes(ctx, () => allowedMethods(ctx, noop) as Promise<void>);
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 405) ctx.throw(405, `method ${ctx.method} is not allowed on ${ctx.path}`);
        if (ctx.status === 501) ctx.throw(501, `method ${ctx.method} is not implemented`, { expose: true });
        ctx.throw(404, `no API endpoint at ${ctx.path}`);
      }
    } catch (error) {
      writeError(ctx, error, deps.logger);
    }
  };
}
