// The fleet counters projection (SPEC "Events" and "Metrics", fleet registry): what the counters of
// /metrics/fleet count, folded from the bus. Plain data plus a pure fold; the prom-client edge reads
// `current()` at scrape time, so no metric library lives in the core.

import type { Observable, Subscription } from 'rxjs';
import type { FleetEvent, ReportType } from '../../events/fleetEvent.ts';
import type { ProjectionErrorHandler } from '../registry/registryProjection.ts';

export interface FleetCounters {
  /** svc_agent_connects_total: AgentConnected. */
  readonly connects: number;
  /** svc_agent_disconnects_total: AgentDisconnected, whatever the reason. */
  readonly disconnects: number;
  /** svc_agents_evicted_total: AgentEvicted, or the agents of AgentsSoftDeleted (see options). */
  readonly evicted: number;
  /** svc_agent_reports_total{type}. */
  readonly reports: Readonly<Record<ReportType, number>>;
  /** svc_gateway_connects_total{result}. */
  readonly gatewayConnects: { readonly accepted: number; readonly rejected: number };
  /** svc_gateway_connections: open connections whose gateway connect was accepted. */
  readonly gatewayConnections: number;
  /** svc_remote_configs_sent_total: remote configs sent to agents (replies and pushes). */
  readonly remoteConfigsSent: number;
  /** svc_remote_config_rejected_total: config sources refused (a file that does not parse). */
  readonly remoteConfigsRejected: number;
  /** svc_job_gate_trips_total{gate}: rollout gates tripped by steps this replica ran. */
  readonly gateTrips: Readonly<Record<string, number>>;
}

export const reportTypes: readonly ReportType[] = [
  'status',
  'health',
  'effective_config',
  'package_statuses',
];

export const initialFleetCounters: FleetCounters = Object.freeze({
  connects: 0,
  disconnects: 0,
  evicted: 0,
  reports: Object.freeze({ status: 0, health: 0, effective_config: 0, package_statuses: 0 }),
  gatewayConnects: Object.freeze({ accepted: 0, rejected: 0 }),
  gatewayConnections: 0,
  remoteConfigsSent: 0,
  remoteConfigsRejected: 0,
  gateTrips: Object.freeze({}),
});

export interface FleetCountersOptions {
  /**
   * Which fact counts as an eviction. SPEC: svc_agents_evicted_total "fires at soft-delete time when
   * persistence is on", so the composition root chooses `soft_delete` exactly when persistence is on;
   * otherwise the sweep's AgentEvicted counts.
   */
  readonly evictionsCountedAt: 'sweep' | 'soft_delete';
}

const countAtSweep: FleetCountersOptions = { evictionsCountedAt: 'sweep' };

/** One more report of `type`. The literal keeps one object shape (a computed key would not). */
function countReport(state: FleetCounters, type: ReportType): FleetCounters {
  const r = state.reports;
  const reports = {
    status: r.status + (type === 'status' ? 1 : 0),
    health: r.health + (type === 'health' ? 1 : 0),
    effective_config: r.effective_config + (type === 'effective_config' ? 1 : 0),
    package_statuses: r.package_statuses + (type === 'package_statuses' ? 1 : 0),
  };
  return { ...state, reports };
}

/** Pure fold. Returns the same reference for events that count nothing (check-ins, full-state requests). */
export function evolveFleetCounters(
  state: FleetCounters,
  event: FleetEvent,
  options: FleetCountersOptions = countAtSweep,
): FleetCounters {
  switch (event.type) {
    case 'AgentConnected':
      return { ...state, connects: state.connects + 1 };
    case 'AgentDisconnected':
      return { ...state, disconnects: state.disconnects + 1 };
    case 'AgentEvicted':
      return options.evictionsCountedAt === 'sweep' ? { ...state, evicted: state.evicted + 1 } : state;
    case 'AgentsSoftDeleted':
      return options.evictionsCountedAt === 'soft_delete' && event.data.uids.length > 0
        ? { ...state, evicted: state.evicted + event.data.uids.length }
        : state;
    case 'AgentStatusReported':
      return countReport(state, 'status');
    case 'AgentHealthReported':
      return countReport(state, 'health');
    case 'AgentEffectiveConfigReported':
      return countReport(state, 'effective_config');
    case 'AgentPackageStatusesReported':
      return countReport(state, 'package_statuses');
    case 'GatewayConnectAnswered': {
      const { accepted, firstOnConnection } = event.data;
      const gatewayConnects = accepted
        ? { ...state.gatewayConnects, accepted: state.gatewayConnects.accepted + 1 }
        : { ...state.gatewayConnects, rejected: state.gatewayConnects.rejected + 1 };
      // Only the first accepted connect marks a connection as a gateway (handler.ts), and only such a
      // connection later publishes GatewayConnectionClosed.
      const opened = accepted && firstOnConnection ? 1 : 0;
      return { ...state, gatewayConnects, gatewayConnections: state.gatewayConnections + opened };
    }
    case 'GatewayConnectionClosed':
      return { ...state, gatewayConnections: Math.max(0, state.gatewayConnections - 1) };
    case 'AgentRemoteConfigOffered':
      return { ...state, remoteConfigsSent: state.remoteConfigsSent + 1 };
    case 'JobGateTripped': {
      const gate = event.data.gate;
      return { ...state, gateTrips: { ...state.gateTrips, [gate]: (state.gateTrips[gate] ?? 0) + 1 } };
    }
    case 'RemoteConfigRejected':
      return { ...state, remoteConfigsRejected: state.remoteConfigsRejected + 1 };
    case 'AgentCheckedIn':
    case 'AgentComplianceChanged':
    case 'AgentFullStateRequested':
    case 'AgentRemoteConfigReported':
    case 'AgentAvailableComponentsReported':
    case 'AgentConnectionSettingsReported':
    case 'AgentOwnTelemetryOffered':
    case 'AgentCommandSent':
    case 'RemoteConfigChanged':
    case 'RemoteConfigRemoved':
    case 'RemoteConfigPinned':
    case 'AgentCredentialRevoked':
      return state;
    default: {
      const _exhaustive: never = event;
      return state;
    }
  }
}

export interface FleetCountersProjection {
  current(): FleetCounters;
  stop(): void;
}

export function createFleetCountersProjection(
  events$: Observable<FleetEvent>,
  onError: ProjectionErrorHandler,
  options: FleetCountersOptions = countAtSweep,
): FleetCountersProjection {
  let state = initialFleetCounters;
  const subscription: Subscription = events$.subscribe((event) => {
    try {
      state = evolveFleetCounters(state, event, options);
    } catch (error) {
      onError('metrics', error);
    }
  });
  return {
    current: () => state,
    stop: () => subscription.unsubscribe(),
  };
}
