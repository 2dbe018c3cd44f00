// What the JSON API's route files share: their dependencies, the router type, and `observed`, the
// wrapper that reports a route's outcome under its template. Apart from apiRouter.ts so that the
// route files and the router that mounts them do not import each other.

import type Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { BuildInfo } from '../../io/buildInfo.ts';
import type { Logger } from '../../io/logger.ts';
import type { JobControl, JobStore } from '../../projections/jobs/jobStore.ts';
import type { AuditLog } from '../../projections/access/auditLog.ts';
import type { AgentRevoker } from '../../projections/identity/agentRevoker.ts';
import type { Registry } from '../../projections/registry/registryProjection.ts';
import type { ConfigCatalog } from '../../projections/remoteConfig/configCatalog.ts';
import type { DesiredConfigs } from '../../projections/remoteConfig/desiredConfigProjection.ts';
import type { CredentialReader } from '../read/agentCredentialRead.ts';
import type { FleetReader } from '../read/fleetReader.ts';
import type { AgentAuthentication } from '../views/statusView.ts';
import type { JobTargetResolver } from '../read/jobTargets.ts';
import { writeError } from './jsonResponse.ts';

/** Receives one observation per request to an instrumented route (svc_api_requests_total & co). */
export type ObserveRequest = (route: string, method: string, code: number, seconds: number) => void;

export interface ApiDeps {
  readonly reader: FleetReader;
  /** Attribute listings and status counts come from the local registry. */
  readonly registry: Registry;
  readonly build: BuildInfo;
  /** What the OpAMP listener asks of agents (GET /api/status). */
  readonly agentAuthentication: AgentAuthentication;
  /** Clock (scheduler.now()) and the time the service started, both Unix ms. */
  readonly now: () => number;
  readonly startedAt: number;
  /** Absent when persistence is off: POST /api/jobs then answers 503 (SPEC durability rule 1). */
  readonly jobStore?: JobStore | undefined;
  /** Reads jobs and makes them act; absent when persistence is off (503). */
  readonly jobs?: JobControl | undefined;
  /** A job's targets now (arming). */
  readonly resolveTargets?: JobTargetResolver | undefined;
  readonly observeRequest?: ObserveRequest | undefined;
  readonly logger: Logger;
  /** Where remote configs live (database, directory or none). */
  readonly configs: ConfigCatalog;
  /** Each agent's desired remote config. */
  readonly desired: Pick<DesiredConfigs, 'desiredFor' | 'current'>;
  /** auth.allow_unauthenticated_writes. */
  readonly allowUnauthenticatedWrites: boolean;
  /** Each agent's credential binding and issued certificates (the agent detail shows them). */
  readonly credentials?: CredentialReader | undefined;
  /** Revokes an agent's credentials; absent: POST /api/agents/{id}/revoke answers 503. */
  readonly revoker?: AgentRevoker | undefined;
  /** The audit log (GET /api/audit); absent: 503. */
  readonly audit?: AuditLog | undefined;
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
