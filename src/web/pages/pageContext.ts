// What every page handler needs, and the one way pages answer: HTML with the security headers.

import type { Context } from 'koa';
import type { BuildInfo } from '../../io/buildInfo.ts';
import type { Logger } from '../../io/logger.ts';
import type { JobControl, JobStore } from '../../projections/jobs/jobStore.ts';
import type { FleetHistory } from '../../projections/history/fleetHistory.ts';
import type { Registry } from '../../projections/registry/registryProjection.ts';
import type { ConfigCatalog } from '../../projections/remoteConfig/configCatalog.ts';
import type { DesiredConfigs } from '../../projections/remoteConfig/desiredConfigProjection.ts';
import type { CredentialReader } from '../read/agentCredentialRead.ts';
import type { FleetReader } from '../read/fleetReader.ts';
import type { AgentAuthentication } from '../views/statusView.ts';
import type { JobCommands } from '../write/jobCommands.ts';
import type { Renderer } from './render.ts';

export interface PagesDeps {
  readonly registry: Registry;
  readonly reader: FleetReader;
  readonly render: Renderer;
  readonly logger: Logger;
  readonly build: BuildInfo;
  /** What the OpAMP listener asks of agents (the status page warns when it asks nothing). */
  readonly agentAuthentication: AgentAuthentication;
  /** Unix ms when the service started (status page). */
  readonly startedAtMs: number;
  /** The service clock (Unix ms); relative times and uptime are computed against it. */
  readonly now: () => number;
  /** Where remote configs live (configs pages). */
  readonly configs: ConfigCatalog;
  /** Each agent's desired remote config (config states on every page, the editor's preview). */
  readonly desired: Pick<DesiredConfigs, 'desiredFor' | 'current'>;
  /** Jobs (jobs pages, the agent's Jobs section); absent when persistence is off. */
  readonly jobs?: JobControl | undefined;
  /** Records jobs (the config page's Roll out…); absent when persistence is off. */
  readonly jobStore?: Pick<JobStore, 'create'> | undefined;
  /** The job page's buttons; absent when persistence is off. */
  readonly jobCommands?: JobCommands | undefined;
  /** auth.allow_unauthenticated_writes: whether an anonymous caller is offered the buttons. */
  readonly allowUnauthenticatedWrites: boolean;
  /** The fleet over time (status and fleet pages); absent, the charts are empty. */
  readonly history?: Pick<FleetHistory, 'read'> | undefined;
  /** Each agent's credential (the agent page's Credential section); absent, the section is omitted. */
  readonly credentials?: CredentialReader | undefined;
  /** pg-boss's dashboard (`/jobs-ui/`), when mounted. */
  readonly jobsUiHref?: string | undefined;
}

/**
 * SPEC UI rule 1 and issue 6: everything comes from this origin; no inline script or style. Set on
 * every page, fragment and asset response of the UI.
 */
export const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'self'",
  "frame-ancestors 'self'",
  "object-src 'none'",
].join('; ');

export function setSecurityHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', contentSecurityPolicy);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
}

export function sendHtml(ctx: Context, status: number, html: string): void {
  setSecurityHeaders(ctx);
  // Fragments and pages show live state: never serve them from a cache.
  ctx.set('Cache-Control', 'no-store');
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
}
