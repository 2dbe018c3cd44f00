// The web UI (SPEC "UI listener: web UI"): fleet, agent detail, configs, jobs and status pages
// with their polled fragments, the job page's buttons, and the embedded static assets. Mounted on
// the UI app after the JSON API router, so /api/* keeps precedence (UI rule 6). Assets are loaded
// once, here, at startup; templates at the first page (render.ts).

import Router from '@koa/router';
import type { BuildInfo } from '../../io/buildInfo.ts';
import type { AgentAuthentication } from '../views/statusView.ts';
import type { CredentialReader } from '../read/agentCredentialRead.ts';
import type { Logger } from '../../io/logger.ts';
import type { JobControl, JobStore } from '../../projections/jobs/jobStore.ts';
import type { FleetHistory } from '../../projections/history/fleetHistory.ts';
import type { Registry } from '../../projections/registry/registryProjection.ts';
import type { ConfigCatalog } from '../../projections/remoteConfig/configCatalog.ts';
import type { DesiredConfigs } from '../../projections/remoteConfig/desiredConfigProjection.ts';
import type { FleetReader } from '../read/fleetReader.ts';
import type { JobTargetResolver } from '../read/jobTargets.ts';
import { createJobCommands } from '../write/jobCommands.ts';
import { mountAgentPage } from './agentPage.ts';
import { mountConfigEditor } from './configEditor.ts';
import { mountConfigPage } from './configPage.ts';
import { mountConfigRestore } from './configRestore.ts';
import { mountConfigRollout } from './configRollout.ts';
import { mountConfigsPage } from './configsPage.ts';
import { mountFleetPage } from './fleetPage.ts';
import { mountHistoryFragment } from './historyFragment.ts';
import { mountJobCommands } from './jobCommandRoutes.ts';
import { mountJobPage } from './jobPage.ts';
import { mountJobsPage } from './jobsPage.ts';
import { sendHtml, type PagesDeps } from './pageContext.ts';
import { createRenderer } from './render.ts';
import { loadStaticAssets, mountStaticAssets } from './staticAssets.ts';
import { mountStatusPage } from './statusPage.ts';

export interface PagesOptions {
  readonly registry: Registry;
  readonly reader: FleetReader;
  readonly logger: Logger;
  readonly build: BuildInfo;
  readonly agentAuthentication: AgentAuthentication;
  readonly credentials?: CredentialReader | undefined;
  readonly startedAtMs: number;
  readonly now: () => number;
  /** ui.poll_interval in milliseconds (SPEC UI rule 2). */
  readonly pollIntervalMs: number;
  readonly configs: ConfigCatalog;
  readonly desired: Pick<DesiredConfigs, 'desiredFor' | 'current'>;
  /** Jobs and what arming needs; absent when persistence is off. */
  readonly jobs?: JobControl | undefined;
  /** Records jobs (Roll out…); absent when persistence is off. */
  readonly jobStore?: Pick<JobStore, 'create'> | undefined;
  readonly resolveTargets?: JobTargetResolver | undefined;
  readonly allowUnauthenticatedWrites: boolean;
  /** Whether pg-boss's dashboard is mounted at /jobs-ui (persistence on). */
  readonly jobsUi: boolean;
  /** The fleet over time; absent, the charts are empty. */
  readonly history?: Pick<FleetHistory, 'read'> | undefined;
}

export function createPagesRouter(options: PagesOptions): Router {
  const render = createRenderer({ pollIntervalMs: options.pollIntervalMs });
  const { jobs, resolveTargets } = options;
  const deps: PagesDeps = {
    ...options,
    render,
    jobCommands:
      jobs === undefined || resolveTargets === undefined
        ? undefined
        : createJobCommands({ jobs, configs: options.configs, resolveTargets, now: options.now }),
    jobsUiHref: options.jobsUi ? '/jobs-ui/' : undefined,
  };
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
  mountConfigsPage(router, deps);
  mountConfigEditor(router, deps);
  mountConfigRollout(router, deps);
  mountConfigRestore(router, deps);
  mountConfigPage(router, deps);
  mountJobsPage(router, deps);
  mountJobPage(router, deps);
  mountJobCommands(router, deps);
  mountStatusPage(router, deps);
  mountHistoryFragment(router, deps);
  return router;
}
