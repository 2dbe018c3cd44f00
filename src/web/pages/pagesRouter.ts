// The web UI (SPEC "UI listener: web UI"): fleet, agent detail and status pages with their polled
// fragments, and the embedded static assets. Mounted on the UI app after the JSON API router, so
// /api/* keeps precedence (UI rule 6). Assets are loaded once, here, at startup; templates at the
// first page (render.ts).

import Router from '@koa/router';
import type { BuildInfo } from '../../io/buildInfo.ts';
import type { Logger } from '../../io/logger.ts';
import type { Registry } from '../../projections/registry/registryProjection.ts';
import type { FleetReader } from '../read/fleetReader.ts';
import { mountAgentPage } from './agentPage.ts';
import { mountFleetPage } from './fleetPage.ts';
import { sendHtml, type PagesDeps } from './pageContext.ts';
import { createRenderer } from './render.ts';
import { loadStaticAssets, mountStaticAssets } from './staticAssets.ts';
import { mountStatusPage } from './statusPage.ts';

export interface PagesOptions {
  readonly registry: Registry;
  readonly reader: FleetReader;
  readonly logger: Logger;
  readonly build: BuildInfo;
  readonly startedAtMs: number;
  readonly now: () => number;
  /** ui.poll_interval in milliseconds (SPEC UI rule 2). */
  readonly pollIntervalMs: number;
}

export function createPagesRouter(options: PagesOptions): Router {
  const render = createRenderer({ pollIntervalMs: options.pollIntervalMs });
  const deps: PagesDeps = { ...options, render };
  const router = new Router();
  // Runs only for matched UI routes: an unexpected error becomes a logged 500 page, not a stack trace.
  router.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      deps.logger.error({ err: error, path: ctx.path }, 'ui page failed');
      sendHtml(ctx, 500, render('error', { title: 'Error', nav: '', now: deps.now() }));
    }
  });
  mountStaticAssets(router, loadStaticAssets());
  mountFleetPage(router, deps);
  mountAgentPage(router, deps);
  mountStatusPage(router, deps);
  return router;
}
