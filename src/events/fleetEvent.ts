// The domain events. Facts in the past tense, each carrying its own time (`at`, Unix milliseconds from
// the injected clock). Order within one inbound AgentToServer (docs/events.md):
//   AgentConnected? → AgentCheckedIn → AgentStatusReported? → AgentHealthReported? →
//   AgentEffectiveConfigReported? → AgentPackageStatusesReported? → AgentRemoteConfigReported? →
//   AgentConnectionSettingsReported? → AgentComplianceChanged? → AgentFullStateRequested? →
//   AgentCommandSent? | (AgentRemoteConfigOffered? → AgentOwnTelemetryOffered?) → AgentDisconnected?
//   (agent_disconnect)
// Unix milliseconds rather than Date: an agent record holds several times and 100,000 records must
// stay small.

import type {
  AgentDescription,
  AvailableComponents,
  ComponentHealth,
  EffectiveConfig,
  PackageStatuses,
  RemoteConfigStatus,
  Session,
  ConnectionSettingsStatus,
} from './agentData.ts';
import type { ConfigRevisionData } from './configData.ts';
import type { ConnectionId, InstanceUid } from './ids.ts';

interface Fact<T extends string, D> {
  readonly type: T;
  readonly at: number;
  readonly data: Readonly<D>;
}

/** An unknown (or evicted) agent appeared, or a disconnected agent sent again. */
export type AgentConnected = Fact<'AgentConnected', { uid: InstanceUid; session: Session }>;

/** Any message from the agent: a check-in. Carries what every message carries. */
export type AgentCheckedIn = Fact<
  'AgentCheckedIn',
  { uid: InstanceUid; session: Session; sequenceNum: bigint; capabilities: bigint }
>;

/** Report of type `status`: a new agent description. */
export type AgentStatusReported = Fact<
  'AgentStatusReported',
  { uid: InstanceUid; description: AgentDescription }
>;
export type AgentHealthReported = Fact<'AgentHealthReported', { uid: InstanceUid; health: ComponentHealth }>;
export type AgentEffectiveConfigReported = Fact<
  'AgentEffectiveConfigReported',
  { uid: InstanceUid; config: EffectiveConfig }
>;
export type AgentPackageStatusesReported = Fact<
  'AgentPackageStatusesReported',
  { uid: InstanceUid; packages: PackageStatuses }
>;

/** The agent reported what it can run (available_components). */
export type AgentAvailableComponentsReported = Fact<
  'AgentAvailableComponentsReported',
  { uid: InstanceUid; components: AvailableComponents }
>;

/** The agent reported what became of the remote config it last received (remote_config_status). */
export type AgentRemoteConfigReported = Fact<
  'AgentRemoteConfigReported',
  { uid: InstanceUid; status: RemoteConfigStatus }
>;

/** The service sent the agent a remote config (in a reply, or pushed over its WebSocket). */
export type AgentRemoteConfigOffered = Fact<
  'AgentRemoteConfigOffered',
  { uid: InstanceUid; hash: string; configs: readonly { name: string; revision: number }[] }
>;

/** The agent reported what became of the connection settings it last received (connection_settings_status). */
export type AgentConnectionSettingsReported = Fact<
  'AgentConnectionSettingsReported',
  { uid: InstanceUid; status: ConnectionSettingsStatus }
>;

/**
 * The service offered the agent where to send its own telemetry (connection_settings own_metrics,
 * own_logs, own_traces; docs/own-telemetry.md): the offer's hash and the signals in it.
 */
export type AgentOwnTelemetryOffered = Fact<
  'AgentOwnTelemetryOffered',
  { uid: InstanceUid; hash: string; signals: readonly ('metrics' | 'logs' | 'traces')[] }
>;

/** The service sent the agent a command (ServerToAgent.command); Restart is the only one OpAMP has. */
export type AgentCommandSent = Fact<'AgentCommandSent', { uid: InstanceUid; command: 'restart' }>;

/** The agent's missing required attributes or reserved-key conflicts changed. */
export type AgentComplianceChanged = Fact<
  'AgentComplianceChanged',
  {
    uid: InstanceUid;
    missing: readonly string[];
    conflicts: readonly string[];
    /** Keys in `missing` that were not missing before (what the counters count). */
    newlyMissing: readonly string[];
    newlyConflicting: readonly string[];
  }
>;

/**
 * Why a reply asks for the full state: no description yet; an agent this registry did not know (new,
 * evicted, or known only before a restart) whose message omits a promised part; or a known agent's
 * sequence gap with such an omission.
 */
export type FullStateReason = 'no_description' | 'unknown_agent' | 'sequence_gap';
export type AgentFullStateRequested = Fact<
  'AgentFullStateRequested',
  { uid: InstanceUid; reason: FullStateReason }
>;

export type DisconnectReason = 'connection_closed' | 'agent_disconnect' | 'heartbeat_missed';
export type AgentDisconnected = Fact<'AgentDisconnected', { uid: InstanceUid; reason: DisconnectReason }>;

/** Removed from the registry after missing the check-in threshold. */
export type AgentEvicted = Fact<'AgentEvicted', { uid: InstanceUid; lastSeen: number }>;

/**
 * The soft delete of evicted agents was written to the store (persistence on; SPEC rule 16; the
 * guard leaves alone a row that a sibling has refreshed since). Published by the flusher; with
 * persistence on, evictions are counted here (SPEC: svc_agents_evicted_total "fires at soft-delete
 * time when persistence is on").
 */
export type AgentsSoftDeleted = Fact<'AgentsSoftDeleted', { uids: readonly InstanceUid[] }>;

/** A config's current revision is now this one (created, changed, restored, enabled or disabled). */
export type RemoteConfigChanged = Fact<'RemoteConfigChanged', { config: ConfigRevisionData }>;
/** A config was deleted: no agent receives it any more. */
export type RemoteConfigRemoved = Fact<'RemoteConfigRemoved', { name: string }>;
/**
 * The agents that receive `config` (a revision other than the current one) instead of the config's
 * current revision: a rollout's reached targets. Replaces the previous set for that config name;
 * an empty `uids` releases them all.
 */
export type RemoteConfigPinned = Fact<
  'RemoteConfigPinned',
  { name: string; config: ConfigRevisionData | null; uids: readonly InstanceUid[] }
>;
/** A config source could not be used (for example a file that does not parse); the last good stays. */
export type RemoteConfigRejected = Fact<
  'RemoteConfigRejected',
  { name: string; source: string; error: string }
>;

/** A gateway connect handshake was answered on a connection. */
export type GatewayConnectAnswered = Fact<
  'GatewayConnectAnswered',
  { connectionId: ConnectionId; accepted: boolean; firstOnConnection: boolean }
>;
/** A connection that had been marked as a gateway closed. */
export type GatewayConnectionClosed = Fact<'GatewayConnectionClosed', { connectionId: ConnectionId }>;

export type AgentEvent =
  | AgentConnected
  | AgentCheckedIn
  | AgentStatusReported
  | AgentHealthReported
  | AgentEffectiveConfigReported
  | AgentPackageStatusesReported
  | AgentAvailableComponentsReported
  | AgentRemoteConfigReported
  | AgentComplianceChanged
  | AgentFullStateRequested
  | AgentRemoteConfigOffered
  | AgentConnectionSettingsReported
  | AgentOwnTelemetryOffered
  | AgentCommandSent
  | AgentDisconnected
  | AgentEvicted;

export type GatewayEvent = GatewayConnectAnswered | GatewayConnectionClosed;

/**
 * An agent's credentials were revoked (POST /api/agents/{id}/revoke, on this replica or a sibling):
 * its binding and certificates are refused from now on, and whichever replica holds a live connection
 * for it closes that connection.
 */
export type AgentCredentialRevoked = Fact<'AgentCredentialRevoked', { uid: InstanceUid; revokedBy: string }>;

export type CredentialEvent = AgentCredentialRevoked;

/** A rollout's gate tripped and paused the job (docs/jobs.md "Gates"). */
export type JobGateTripped = Fact<'JobGateTripped', { jobId: string; gate: string }>;

/** Facts reported by the store rather than by agents. */
export type StoreEvent = AgentsSoftDeleted | JobGateTripped;

export type ConfigEvent =
  RemoteConfigChanged | RemoteConfigRemoved | RemoteConfigRejected | RemoteConfigPinned;

export type FleetEvent = AgentEvent | GatewayEvent | StoreEvent | ConfigEvent | CredentialEvent;

export type ReportType = 'status' | 'health' | 'effective_config' | 'package_statuses';

/** The SPEC report type of an event, or undefined when it is not a report. */
export function reportTypeOf(event: FleetEvent): ReportType | undefined {
  switch (event.type) {
    case 'AgentStatusReported':
      return 'status';
    case 'AgentHealthReported':
      return 'health';
    case 'AgentEffectiveConfigReported':
      return 'effective_config';
    case 'AgentPackageStatusesReported':
      return 'package_statuses';
    default:
      return undefined;
  }
}

const notAgentEvents: ReadonlySet<FleetEvent['type']> = new Set<Exclude<FleetEvent, AgentEvent>['type']>([
  'GatewayConnectAnswered',
  'GatewayConnectionClosed',
  'AgentsSoftDeleted',
  'JobGateTripped',
  'RemoteConfigChanged',
  'RemoteConfigRemoved',
  'RemoteConfigRejected',
  'RemoteConfigPinned',
  'AgentCredentialRevoked',
]);

export function isAgentEvent(event: FleetEvent): event is AgentEvent {
  return !notAgentEvents.has(event.type);
}
