// Each agent's timeline during a replay: connects, reports, health changes, remote config reports
// and sends, disconnects, evictions and full-state requests, in event order. Heartbeats (check-ins) are counted, not listed.

import type { Observable, Subscription } from 'rxjs';
import { isAgentEvent, type FleetEvent } from '../../src/events/fleetEvent.ts';
import type { InstanceUid } from '../../src/events/ids.ts';

export type TimelineEntry =
  | { at: string; event: 'connected'; transport: string; remote_addr: string; via_gateway: boolean }
  | { at: string; event: 'report'; type: string }
  | { at: string; event: 'health_changed'; healthy: boolean; status: string; last_error: string }
  | { at: string; event: 'compliance_changed'; missing: readonly string[]; conflicts: readonly string[] }
  | { at: string; event: 'full_state_requested'; reason: string }
  | { at: string; event: 'available_components'; hash: string; kinds: number }
  | { at: string; event: 'remote_config_reported'; hash: string; status: string; error: string }
  | { at: string; event: 'remote_config_sent'; hash: string }
  | { at: string; event: 'connection_settings_status'; hash: string; status: string; error: string }
  | { at: string; event: 'own_telemetry_sent'; hash: string; signals: readonly string[] }
  | { at: string; event: 'command_sent'; command: string }
  | { at: string; event: 'disconnected'; reason: string }
  | { at: string; event: 'evicted'; last_seen: string };

export interface AgentTimeline {
  readonly entries: TimelineEntry[];
  checkIns: number;
  /** Health as last reported, to list only changes. */
  lastHealthy: boolean | undefined;
}

export interface TimelineCollector {
  readonly timelines: ReadonlyMap<InstanceUid, AgentTimeline>;
  stop(): void;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Collects timelines for every agent, or only for `only` when given. */
export function collectTimelines(
  events$: Observable<FleetEvent>,
  only?: ReadonlySet<string>,
): TimelineCollector {
  const timelines = new Map<InstanceUid, AgentTimeline>();
  const timelineOf = (uid: InstanceUid): AgentTimeline => {
    let t = timelines.get(uid);
    if (t === undefined) {
      t = { entries: [], checkIns: 0, lastHealthy: undefined };
      timelines.set(uid, t);
    }
    return t;
  };

  function add(event: FleetEvent): void {
    if (!isAgentEvent(event)) return;
    const uid = event.data.uid;
    if (only !== undefined && !only.has(uid)) return;
    const t = timelineOf(uid);
    const at = iso(event.at);
    switch (event.type) {
      case 'AgentConnected': {
        const s = event.data.session;
        t.entries.push({
          at,
          event: 'connected',
          transport: s.transport,
          remote_addr: s.remoteAddr,
          via_gateway: s.viaGateway,
        });
        return;
      }
      case 'AgentCheckedIn':
        t.checkIns++;
        return;
      case 'AgentStatusReported':
        t.entries.push({ at, event: 'report', type: 'status' });
        return;
      case 'AgentHealthReported': {
        t.entries.push({ at, event: 'report', type: 'health' });
        const h = event.data.health;
        if (t.lastHealthy !== h.healthy)
          t.entries.push({
            at,
            event: 'health_changed',
            healthy: h.healthy,
            status: h.status,
            last_error: h.lastError,
          });
        t.lastHealthy = h.healthy;
        return;
      }
      case 'AgentEffectiveConfigReported':
        t.entries.push({ at, event: 'report', type: 'effective_config' });
        return;
      case 'AgentPackageStatusesReported':
        t.entries.push({ at, event: 'report', type: 'package_statuses' });
        return;
      case 'AgentRemoteConfigReported': {
        const { hash, status, errorMessage } = event.data.status;
        t.entries.push({ at, event: 'remote_config_reported', hash, status, error: errorMessage });
        return;
      }
      case 'AgentAvailableComponentsReported': {
        const { hash, components } = event.data.components;
        t.entries.push({ at, event: 'available_components', hash, kinds: Object.keys(components).length });
        return;
      }
      case 'AgentCommandSent':
        t.entries.push({ at, event: 'command_sent', command: event.data.command });
        return;
      case 'AgentRemoteConfigOffered':
        t.entries.push({ at, event: 'remote_config_sent', hash: event.data.hash });
        return;
      case 'AgentConnectionSettingsReported': {
        const { hash, status, errorMessage } = event.data.status;
        t.entries.push({ at, event: 'connection_settings_status', hash, status, error: errorMessage });
        return;
      }
      case 'AgentOwnTelemetryOffered':
        t.entries.push({
          at,
          event: 'own_telemetry_sent',
          hash: event.data.hash,
          signals: event.data.signals,
        });
        return;
      case 'AgentComplianceChanged':
        t.entries.push({
          at,
          event: 'compliance_changed',
          missing: event.data.missing,
          conflicts: event.data.conflicts,
        });
        return;
      case 'AgentFullStateRequested':
        t.entries.push({ at, event: 'full_state_requested', reason: event.data.reason });
        return;
      case 'AgentDisconnected':
        t.entries.push({ at, event: 'disconnected', reason: event.data.reason });
        return;
      case 'AgentEvicted':
        t.entries.push({ at, event: 'evicted', last_seen: iso(event.data.lastSeen) });
        t.lastHealthy = undefined;
        return;
      default: {
        const _exhaustive: never = event;
        return;
      }
    }
  }

  const subscription: Subscription = events$.subscribe(add);
  return { timelines, stop: () => subscription.unsubscribe() };
}
