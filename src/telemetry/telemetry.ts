// Observability, wired once by the composition root: the two Prometheus registries (server and
// fleet, never prom-client's global one, never sharing a series), the fleet counters projection,
// the OpAMP protocol observer, the API request observer and, when debug.pprof_enabled, the profiler.

import type Router from '@koa/router';
import { Registry as PromRegistry } from 'prom-client';
import type { Observable } from 'rxjs';
import type { FleetEvent } from '../events/fleetEvent.ts';
import type { BuildInfo } from '../io/buildInfo.ts';
import type { Config } from '../io/config/schema.ts';
import type { Logger } from '../io/logger.ts';
import type { ProtocolObserver } from '../io/opamp/handler.ts';
import type { ComplianceCountersProjection } from '../projections/compliance/complianceCounters.ts';
import { createFleetCountersProjection } from '../projections/metrics/fleetCounters.ts';
import type { ProjectionErrorHandler, Registry } from '../projections/registry/registryProjection.ts';
import { registerFleetMetrics } from './fleetMetrics.ts';
import { mountMetrics } from './metricsRoutes.ts';
import { mountPprof } from './pprof/pprofRoutes.ts';
import { createProfiler, type Profiler } from './pprof/profiler.ts';
import { registerServerMetrics, type ObserveRequest } from './serverMetrics.ts';

export interface ObservabilityDeps {
  readonly config: Config;
  readonly build: BuildInfo;
  readonly events$: Observable<FleetEvent>;
  readonly registry: Registry;
  readonly compliance: ComplianceCountersProjection;
  readonly logger: Logger;
  readonly onError: ProjectionErrorHandler;
}

/** What other parts of the service use (exposed on the App as `app.metrics`). */
export interface Metrics {
  /** The server registry (/metrics). Register server-side metrics here (e.g. registerPersistenceMetrics). */
  readonly server: PromRegistry;
  /** The fleet registry (/metrics/fleet). */
  readonly fleet: PromRegistry;
  readonly observeRequest: ObserveRequest;
  /** See FleetCountersProjection.countEvictionsExternally: persistence counts evictions at soft delete. */
  countEvictionsExternally(): (n: number) => void;
}

export interface Observability {
  readonly metrics: Metrics;
  readonly protocolObserver: ProtocolObserver;
  /** For createTelemetryApp's `mount` hook. */
  readonly mount: (router: Router) => void;
  start(): Promise<void>;
  /** Ends a CPU profile in flight and stops the projection. */
  stop(): Promise<void>;
}

export function createObservability(deps: ObservabilityDeps): Observability {
  const { config } = deps;
  const server = new PromRegistry();
  const fleet = new PromRegistry();
  const counters = createFleetCountersProjection(deps.events$, deps.onError);
  const { protocolObserver, observeRequest } = registerServerMetrics({
    register: server,
    config,
    build: deps.build,
    logger: deps.logger,
  });
  registerFleetMetrics({
    register: fleet,
    agents: deps.registry,
    counters,
    compliance: deps.compliance,
    perAgentSeriesLimit: config.metrics.per_agent_series_limit,
    requiredAttributes: config.fleet.required_attributes,
  });
  const profiler: Profiler | undefined = config.debug.pprof_enabled
    ? createProfiler((message, error) => deps.logger.warn({ err: error }, message))
    : undefined;

  return {
    metrics: {
      server,
      fleet,
      observeRequest,
      countEvictionsExternally: () => counters.countEvictionsExternally(),
    },
    protocolObserver,
    mount: (router) => {
      mountMetrics(router, { server, fleet });
      if (profiler !== undefined) mountPprof(router, profiler);
    },
    start: async () => {
      await profiler?.start();
    },
    stop: async () => {
      await profiler?.stop();
      counters.stop();
    },
  };
}
