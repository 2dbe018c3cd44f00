// Telemetry, the edge that observes the service (docs/observability.md): the two Prometheus
// registries (server and fleet, never prom-client's global one, never sharing a series), the fleet
// counters projection, the OpAMP protocol counters, the API request observer, the persistence
// metrics when persistence is on, the optional profiler, and the telemetry listener (probes,
// /metrics, /metrics/fleet, /debug/pprof). Fed by the bus and the projections; nothing here is a
// part of the web UI listener.

import type Koa from 'koa';
import type { Middleware } from 'koa';
import { Registry as PromRegistry } from 'prom-client';
import type { Observable } from 'rxjs';
import type { FleetEvent } from '../events/fleetEvent.ts';
import type { BuildInfo } from '../io/buildInfo.ts';
import type { Config } from '../io/config/schema.ts';
import type { Logger } from '../io/logger.ts';
import type { ComplianceCountersProjection } from '../projections/compliance/complianceCounters.ts';
import {
  createFleetCountersProjection,
  type FleetCountersOptions,
} from '../projections/metrics/fleetCounters.ts';
import type { ProjectionErrorHandler, Registry } from '../projections/registry/registryProjection.ts';
import type { AgentState } from '../projections/agent/agentState.ts';
import type { DesiredConfig } from '../projections/remoteConfig/desiredConfig.ts';
import { registerFleetMetrics } from './fleetMetrics.ts';
import { registerJobMetrics, type JobCountsSource } from './jobMetrics.ts';
import { mountMetrics } from './metricsRoutes.ts';
import {
  registerPersistenceMetrics,
  registerStoreFallbacks,
  type ListSurface,
  type PersistenceGaugeSources,
  type PersistenceMetricsSink,
} from './persistenceMetrics.ts';
import { mountPprof } from './pprof/pprofRoutes.ts';
import { createProfiler, type Profiler } from './pprof/profiler.ts';
import { registerServerMetrics, type ObserveRequest, type ProtocolCounters } from './serverMetrics.ts';
import { registerShutdownMetrics, type CountShutdownCut } from './shutdownMetrics.ts';
import {
  registerLogSuppressedMetric,
  registerTelemetryRefusalMetrics,
  registerUiRefusalMetrics,
  type CountUiRefusal,
} from './uiRefusalMetrics.ts';
import { createTelemetryApp } from './telemetryApp.ts';

export interface TelemetryDeps {
  readonly config: Config;
  readonly build: BuildInfo;
  readonly events$: Observable<FleetEvent>;
  readonly registry: Registry;
  readonly compliance: ComplianceCountersProjection;
  /** Each agent's desired remote config (svc_agents_config_state). */
  readonly desiredFor: (agent: AgentState) => DesiredConfig | undefined;
  readonly logger: Logger;
  readonly onError: ProjectionErrorHandler;
  /** Decided by the composition root: evictions count at soft delete exactly when persistence is on. */
  readonly evictionsCountedAt: FleetCountersOptions['evictionsCountedAt'];
  /** Readiness for /readyz. */
  readonly isReady: () => boolean;
  readonly isDraining: () => boolean;
  /** Client-certificate authorization of the listener (telemetryAuth.ts). */
  readonly auth?: Middleware | undefined;
}

export interface Telemetry {
  /** The server registry (/metrics). */
  readonly server: PromRegistry;
  /** The fleet registry (/metrics/fleet). */
  readonly fleet: PromRegistry;
  /** svc_opamp_messages_total and svc_opamp_message_errors_total (the OpAMP handler's observer). */
  readonly protocol: ProtocolCounters;
  /** svc_api_requests_total and svc_api_request_duration_seconds. */
  readonly observeRequest: ObserveRequest;
  /** svc_ui_requests_refused_total{reason}. */
  readonly uiRefused: CountUiRefusal;
  /** Registers the persistence metrics (persistence on only, SPEC rule 1) and returns their sink. */
  persistenceMetrics(gauges: PersistenceGaugeSources): PersistenceMetricsSink;
  /**
   * Registers svc_list_agents_store_fallback_errors_total (persistence on only) and returns what
   * counts one list served without the store.
   */
  storeFallbacks(): (surface: ListSurface) => void;
  /** Registers the job metrics (persistence on only), reading job counts at scrape time. */
  jobMetrics(counts: JobCountsSource): void;
  /** The telemetry listener's koa app. */
  readonly listener: Koa;
  start(): Promise<void>;
  /** Ends a CPU profile in flight and stops the counters projection. */
  stop(): Promise<void>;
}

/** The server registry and the counters the OpAMP listener and the UI listener feed. */
export interface ServerTelemetry {
  readonly server: PromRegistry;
  readonly protocol: ProtocolCounters;
  readonly observeRequest: ObserveRequest;
  readonly uiRefused: CountUiRefusal;
  /** svc_telemetry_requests_refused_total{reason}. */
  readonly telemetryRefused: CountUiRefusal;
  /** svc_log_lines_suppressed_total. */
  readonly logSuppressed: () => void;
  /** WebSockets cut at shutdown (shutdownMetrics.ts). */
  readonly shutdownCut: CountShutdownCut;
}

/**
 * The server registry alone, made first: the OpAMP handler counts into it, and the fleet core it
 * belongs to is what the rest of telemetry is built on.
 */
export function createServerTelemetry(
  deps: Pick<TelemetryDeps, 'config' | 'build' | 'logger'>,
): ServerTelemetry {
  const server = new PromRegistry();
  const { protocol, observeRequest } = registerServerMetrics({
    register: server,
    config: deps.config,
    build: deps.build,
    logger: deps.logger,
  });
  return {
    server,
    protocol,
    observeRequest,
    uiRefused: registerUiRefusalMetrics(server),
    telemetryRefused: registerTelemetryRefusalMetrics(server),
    logSuppressed: registerLogSuppressedMetric(server),
    shutdownCut: registerShutdownMetrics(server),
  };
}

export function createTelemetry(deps: TelemetryDeps, serverTelemetry: ServerTelemetry): Telemetry {
  const { config } = deps;
  const { server, protocol, observeRequest, uiRefused } = serverTelemetry;
  const fleet = new PromRegistry();
  const counters = createFleetCountersProjection(deps.events$, deps.onError, {
    evictionsCountedAt: deps.evictionsCountedAt,
  });
  registerFleetMetrics({
    register: fleet,
    agents: deps.registry,
    counters,
    compliance: deps.compliance,
    perAgentSeriesLimit: config.metrics.per_agent_series_limit,
    requiredAttributes: config.fleet.required_attributes,
    desiredFor: deps.desiredFor,
  });
  const profiler: Profiler | undefined = config.debug.pprof_enabled
    ? createProfiler((message, error) => deps.logger.warn({ err: error }, message))
    : undefined;
  const listener = createTelemetryApp({
    isReady: deps.isReady,
    isDraining: deps.isDraining,
    auth: deps.auth,
    mount: (router) => {
      mountMetrics(router, { server, fleet });
      if (profiler !== undefined) mountPprof(router, profiler);
    },
  });

  return {
    server,
    fleet,
    protocol,
    observeRequest,
    uiRefused,
    persistenceMetrics: (gauges) => registerPersistenceMetrics({ fleet, ...gauges }),
    storeFallbacks: () => registerStoreFallbacks(server),
    jobMetrics: (counts) => registerJobMetrics(fleet, counts, counters),
    listener,
    start: async () => {
      await profiler?.start();
    },
    stop: async () => {
      await profiler?.stop();
      counters.stop();
    },
  };
}
