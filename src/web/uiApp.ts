// The UI listener: JSON API under /api (takes precedence), then the web UI pages and static assets.

import type Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import type { Logger } from '../io/logger.ts';
import type { FleetHistory } from '../projections/history/fleetHistory.ts';
import type { Registry } from '../projections/registry/registryProjection.ts';
import type { ApiDeps } from './api/apiDeps.ts';
import { createApiMiddleware } from './api/apiRouter.ts';
import { jobsUiWriteRule } from './guard/jobsUiWrites.ts';
import { jobsUiShell } from './jobsUiShell.ts';
import type { CountRefusal } from './guard/refusal.ts';
import { createRequestGuard } from './guard/requestGuard.ts';
import type { RequestPolicy } from './guard/requestRules.ts';
import { createPagesRouter } from './pages/pagesRouter.ts';
import type { FleetReader } from './read/fleetReader.ts';
import { signInRedirect } from './session/signInRedirect.ts';
import { viewerHeader } from './session/viewerHeader.ts';

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
  /** ui.allowed_hosts and ui.allowed_origins (none: any Host, only the listener's own origin). */
  readonly requestPolicy?: RequestPolicy;
  /** svc_ui_requests_refused_total{reason}. */
  readonly countRefusal?: CountRefusal;
  /** The job-queue UI under /jobs-ui; present only when database.host is set (SPEC durability rule 22). */
  readonly jobsUi?: Middleware | undefined;
  /** People's sign-in (src/web/session/signIn.ts): the /auth routes, and whether anyone can sign in. */
  readonly signIn?: { readonly routes: Router; readonly offered: boolean } | undefined;
  /** The audit log's recorder of writes, and its routes (/api/audit, /audit): after auth, before the API. */
  readonly audit?: { readonly recorder: Middleware; readonly routes: Router } | undefined;
}

export function createUiApp(deps: UiDeps): Koa {
  const app = new Koa();
  // The host and cross-site rules, then authorization, come before everything: API, pages, /static
  // and /jobs-ui (SPEC "Authentication" 1; docs/security.md).
  const policy = deps.requestPolicy ?? { allowedHosts: [], allowedOrigins: [] };
  app.use(createRequestGuard(policy, deps.countRefusal ?? (() => undefined)));
  // The header's account area, and a page refused to an anonymous browser sent to sign in (both
  // act on the answer, so they wrap everything after them).
  const offered = deps.signIn?.offered ?? false;
  app.use(viewerHeader());
  app.use(signInRedirect(offered));
  // /auth is reachable without a credential: it is where a person gets one.
  if (deps.signIn) app.use(deps.signIn.routes.routes());
  if (deps.auth) app.use(deps.auth);
  if (deps.audit) {
    app.use(deps.audit.recorder);
    app.use(deps.audit.routes.routes());
  }
  // Then: /api/* never reaches the UI routes (SPEC UI rule 6).
  app.use(
    createApiMiddleware({ ...deps.api, reader: deps.reader, registry: deps.registry, logger: deps.logger }),
  );
  if (deps.jobsUi) {
    // jobsUiBasePath, not imported: src/persistence stays unloaded when persistence is off.
    app.use(jobsUiWriteRule('/jobs-ui', deps.api.allowUnauthenticatedWrites));
    app.use(jobsUiShell(deps.jobsUi));
  }
  const pages = createPagesRouter({
    registry: deps.registry,
    reader: deps.reader,
    logger: deps.logger,
    build: deps.api.build,
    agentAuthentication: deps.api.agentAuthentication,
    credentials: deps.api.credentials,
    startedAtMs: deps.api.startedAt,
    now: deps.api.now,
    pollIntervalMs: deps.pollIntervalMs ?? 5000,
    configs: deps.api.configs,
    desired: deps.api.desired,
    jobs: deps.api.jobs,
    jobStore: deps.api.jobStore,
    resolveTargets: deps.api.resolveTargets,
    allowUnauthenticatedWrites: deps.api.allowUnauthenticatedWrites,
    jobsUi: deps.jobsUi !== undefined,
    history: deps.history,
  });
  app.use(pages.routes());
  app.use(pages.allowedMethods());
  return app;
}
