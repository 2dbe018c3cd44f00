// The UI listener: JSON API under /api (takes precedence), then the web UI pages and static assets.

import Koa, { type Middleware } from 'koa';
import type { Logger } from '../io/logger.ts';
import type { FleetHistory } from '../projections/history/fleetHistory.ts';
import type { Registry } from '../projections/registry/registryProjection.ts';
import type { ApiDeps } from './api/apiDeps.ts';
import { createApiMiddleware } from './api/apiRouter.ts';
import { createPagesRouter } from './pages/pagesRouter.ts';
import type { FleetReader } from './read/fleetReader.ts';

export interface UiDeps {
  readonly registry: Registry;
  readonly logger: Logger;
  /** The fleet read path shared by the API and the pages (registry + optional store). */
  readonly reader: FleetReader;
  /** What the JSON API needs beyond the shared deps above. */
  readonly api: Omit<ApiDeps, 'reader' | 'registry' | 'logger'>;
  /** ui.poll_interval in ms for the fleet and status fragments (default 5s). */
  readonly pollIntervalMs?: number;
  /** Client-certificate authorization (src/web/auth.ts); runs before every route. */
  readonly auth?: Middleware | undefined;
  /** The fleet over time for the status and fleet pages' charts. */
  readonly history?: Pick<FleetHistory, 'read'> | undefined;
  /** The job-queue UI under /jobs-ui; present only when database.host is set (SPEC durability rule 22). */
  readonly jobsUi?: Middleware | undefined;
}

export function createUiApp(deps: UiDeps): Koa {
  const app = new Koa();
  // Authorization comes before everything: API, pages, /static and /jobs-ui (SPEC "Authentication" 1).
  if (deps.auth) app.use(deps.auth);
  // Then: /api/* never reaches the UI routes (SPEC UI rule 6).
  app.use(
    createApiMiddleware({ ...deps.api, reader: deps.reader, registry: deps.registry, logger: deps.logger }),
  );
  if (deps.jobsUi) app.use(deps.jobsUi);
  const pages = createPagesRouter({
    registry: deps.registry,
    reader: deps.reader,
    logger: deps.logger,
    build: deps.api.build,
    startedAtMs: deps.api.startedAt,
    now: deps.api.now,
    pollIntervalMs: deps.pollIntervalMs ?? 5000,
    configs: deps.api.configs,
    desired: deps.api.desired,
    jobs: deps.api.jobs,
    resolveTargets: deps.api.resolveTargets,
    allowUnauthenticatedWrites: deps.api.allowUnauthenticatedWrites,
    jobsUi: deps.jobsUi !== undefined,
    history: deps.history,
  });
  app.use(pages.routes());
  app.use(pages.allowedMethods());
  return app;
}
