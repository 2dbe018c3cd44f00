// The JSON API under /api (SPEC "UI listener: JSON API"). Mounted first on the UI listener and never
// passing /api/* on, so API routes take precedence over UI routes (SPEC UI rule 6). Every error,
// including unknown paths (404) and wrong methods (405), goes through writeError.

import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { BuildInfo } from '../../io/buildInfo.ts';
import type { Logger } from '../../io/logger.ts';
import type { JobStore } from '../../persistence/jobs/jobStore.ts';
import type { Registry } from '../../projections/registry/registryProjection.ts';
import type { FleetReader } from '../read/fleetReader.ts';
import { agentRoutes } from './agentRoutes.ts';
import { infoRoutes } from './infoRoutes.ts';
import { jobRoutes } from './jobRoutes.ts';
import { writeError } from './jsonResponse.ts';

/** Receives one observation per request to an instrumented route (svc_api_requests_total & co). */
export type ObserveRequest = (route: string, method: string, code: number, seconds: number) => void;

export interface ApiDeps {
  readonly reader: FleetReader;
  /** Attribute listings and status counts come from the local registry. */
  readonly registry: Registry;
  readonly build: BuildInfo;
  /** Clock (scheduler.now()) and the time the service started, both Unix ms. */
  readonly now: () => number;
  readonly startedAt: number;
  /** Absent when persistence is off: POST /api/jobs then answers 503 (SPEC durability rule 1). */
  readonly jobStore?: JobStore | undefined;
  readonly observeRequest?: ObserveRequest | undefined;
  readonly logger: Logger;
}

export type ApiRouter = Router;

/** Wraps a route so its outcome (after error mapping) is reported under the route template. */
export function observed(route: string, deps: ApiDeps): Middleware {
  return async (ctx: Context, next: Next) => {
    const observe = deps.observeRequest;
    if (observe === undefined) {
      await next();
      return;
    }
    const start = process.hrtime.bigint();
    try {
      await next();
    } catch (error) {
      writeError(ctx, error, deps.logger);
    }
    try {
      observe(route, ctx.method, ctx.status, Number(process.hrtime.bigint() - start) / 1e9);
    } catch (error) {
      deps.logger.error({ err: error, route }, 'observeRequest failed');
    }
  };
}

const isApiPath = (path: string): boolean => path === '/api' || path.startsWith('/api/');

export function createApiMiddleware(deps: ApiDeps): Middleware {
  const router: ApiRouter = new Router({ strict: true });
  agentRoutes(router, deps);
  infoRoutes(router, deps);
  jobRoutes(router, deps);

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
