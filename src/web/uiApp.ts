// The UI listener: JSON API under /api (takes precedence), then the web UI pages and static assets.

import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from '../io/logger.ts';
import type { Registry } from '../projections/registry/registryProjection.ts';

export interface UiDeps {
  readonly registry: Registry;
  readonly logger: Logger;
}

export function createUiApp(_deps: UiDeps): Koa {
  const app = new Koa();
  const router = new Router();
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
