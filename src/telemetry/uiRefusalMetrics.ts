// svc_ui_requests_refused_total{reason} on the server registry: every request the UI listener
// refuses before a route answers it (docs/security.md lists the reasons). The web listener's
// request guard is the only caller, through the root; telemetry does not import web, so the reason
// is a plain label value here.

import { Counter, type Registry as PromRegistry } from 'prom-client';

export type CountUiRefusal = (reason: string) => void;

export function registerUiRefusalMetrics(register: PromRegistry): CountUiRefusal {
  const refused = new Counter({
    name: 'svc_ui_requests_refused_total',
    help: 'Requests the UI listener refused: host, cross-site, content type, authentication, closed reads, body limits, job-queue UI writes.',
    labelNames: ['reason'],
    registers: [register],
  });
  return (reason) => refused.inc({ reason });
}

/**
 * svc_telemetry_requests_refused_total{reason}: connections and requests the telemetry listener
 * refused before its routes (`request_timeout`, `body_not_allowed`; docs/security.md).
 */
export function registerTelemetryRefusalMetrics(register: PromRegistry): CountUiRefusal {
  const refused = new Counter({
    name: 'svc_telemetry_requests_refused_total',
    help: 'Connections and requests the telemetry listener refused before its routes: no request in time, a body on GET, HEAD or OPTIONS.',
    labelNames: ['reason'],
    registers: [register],
  });
  return (reason) => refused.inc({ reason });
}

/**
 * svc_log_lines_suppressed_total: log lines an agent caused past its log budget, not written
 * (src/io/agentLog.ts; docs/observability.md).
 */
export function registerLogSuppressedMetric(register: PromRegistry): () => void {
  const suppressed = new Counter({
    name: 'svc_log_lines_suppressed_total',
    help: 'Log lines caused by one agent past its per-agent budget, counted and not written.',
    registers: [register],
  });
  return () => suppressed.inc();
}
