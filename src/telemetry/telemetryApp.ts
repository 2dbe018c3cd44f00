// The telemetry listener: /healthz (liveness), /readyz (readiness), and the metric endpoints that the
// metrics collector mounts.

import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';

export interface TelemetryDeps {
  readonly isReady: () => boolean;
  readonly isDraining: () => boolean;
  /** Adds more routes (metrics, profiling) to the same router. */
  readonly mount?: ((router: Router) => void) | undefined;
  /** Client-certificate authorization (src/web/auth.ts); runs before every route. */
  readonly auth?: Middleware | undefined;
}

export function createTelemetryApp(deps: TelemetryDeps): Koa {
  const app = new Koa();
  if (deps.auth) app.use(deps.auth);
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.type = 'text/plain';
    ctx.body = 'ok';
  });
  router.get('/readyz', (ctx) => {
    ctx.type = 'text/plain';
    if (deps.isReady() && !deps.isDraining()) {
      ctx.body = 'ok';
    } else {
      ctx.status = 503;
      ctx.body = deps.isDraining() ? 'draining' : 'starting';
    }
  });
  deps.mount?.(router);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
