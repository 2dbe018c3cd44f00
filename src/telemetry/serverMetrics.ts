// The server registry (/metrics, SPEC "Metrics"): build and config identity, the OpAMP protocol
// counters (the composition root hands them to the OpAMP handler as its observer), the API request
// metrics, and prom-client's default process and runtime collectors. Registered on an injected
// Registry, never the global one.

import { collectDefaultMetrics, Counter, Gauge, Histogram, type Registry as PromRegistry } from 'prom-client';
import type { BuildInfo } from '../io/buildInfo.ts';
import type { Config } from '../io/config/schema.ts';
import { formatDuration } from '../projections/units/duration.ts';
import type { Logger } from '../io/logger.ts';

/** Counts OpAMP messages processed and those that failed to read or decode, and refusals. */
export interface ProtocolCounters {
  messageReceived(): void;
  messageFailed(reason: string): void;
  /** The OpAMP listener refused a request or connection (svc_opamp_refused_total{reason}). */
  refused(reason: string): void;
  /** A WebSocket's reads paused behind the credential store (svc_opamp_reads_paused_total). */
  readsPaused(): void;
}

/** SPEC: the instrumented routes, as templates (never a concrete id). */
export const apiRoutes = [
  '/api/agents',
  '/api/agents/{id}',
  '/api/status',
  '/api/attributes',
  '/api/attributes/values',
] as const;
export type ApiRoute = (typeof apiRoutes)[number];

/**
 * Records one finished API request. `route` is a template from `apiRoutes`; other routes are ignored,
 * so a caller's mistake can never grow the label set.
 */
export type ObserveRequest = (route: string, method: string, code: number, seconds: number) => void;

export interface ServerMetrics {
  readonly protocol: ProtocolCounters;
  readonly observeRequest: ObserveRequest;
}

/** The non-secret settings of svc_config_info; TLS flags describe the OpAMP listener. */
export function configInfoLabels(config: Config): Record<string, string> {
  return {
    log_level: config.log.level,
    log_format: config.log.format,
    tls_enabled: String(config.opamp_tls.cert_file !== ''),
    mtls_enabled: String(config.opamp_tls.client_ca_file !== ''),
    heartbeat_interval: formatDuration(config.fleet.heartbeat_interval),
    stale_missed_heartbeats: String(config.fleet.stale_missed_heartbeats),
    per_agent_series_limit: String(config.metrics.per_agent_series_limit),
  };
}

export function registerServerMetrics(deps: {
  register: PromRegistry;
  config: Config;
  build: BuildInfo;
  logger: Logger;
}): ServerMetrics {
  const registers = [deps.register];
  collectDefaultMetrics({ register: deps.register });

  new Gauge({
    name: 'svc_build_info',
    help: 'Build identity; go_version carries the runtime version. Always 1.',
    labelNames: ['version', 'commit', 'go_version'],
    registers,
  }).set({ version: deps.build.version, commit: deps.build.commit, go_version: deps.build.go_version }, 1);
  const configLabels = configInfoLabels(deps.config);
  new Gauge({
    name: 'svc_config_info',
    help: 'Non-secret settings in effect. Always 1.',
    labelNames: Object.keys(configLabels),
    registers,
  }).set(configLabels, 1);

  const messages = new Counter({
    name: 'svc_opamp_messages_total',
    help: 'OpAMP messages processed.',
    registers,
  });
  const messageErrors = new Counter({
    name: 'svc_opamp_message_errors_total',
    help: 'OpAMP messages that failed to read or decode.',
    registers,
  });
  const refusals = new Counter({
    name: 'svc_opamp_refused_total',
    help: 'Requests, connections and messages the OpAMP listener refused, by reason.',
    labelNames: ['reason'],
    registers,
  });
  const readsPaused = new Counter({
    name: 'svc_opamp_reads_paused_total',
    help: 'Times a WebSocket was no longer read because its messages waited for the credential store.',
    registers,
  });
  const labelNames = ['route', 'method', 'code'] as const;
  const requests = new Counter({
    name: 'svc_api_requests_total',
    help: 'API requests.',
    labelNames,
    registers,
  });
  const durations = new Histogram({
    name: 'svc_api_request_duration_seconds',
    help: 'API request duration in seconds.',
    labelNames,
    registers,
  });

  const known = new Set<string>(apiRoutes);
  return {
    protocol: {
      messageReceived: () => messages.inc(),
      messageFailed: (reason) => {
        messageErrors.inc();
        deps.logger.debug({ reason }, 'opamp message rejected');
      },
      refused: (reason) => refusals.inc({ reason }),
      readsPaused: () => readsPaused.inc(),
    },
    observeRequest: (route, method, code, seconds) => {
      if (!known.has(route)) return;
      const labels = { route, method: method.toUpperCase(), code: String(code) };
      requests.inc(labels);
      durations.observe(labels, seconds);
    },
  };
}
