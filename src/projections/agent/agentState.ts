// The registry's record of one agent: every field of SPEC "Agent" plus the session fields.
// Kept compact on purpose (no protobuf objects, no raw frames): 100,000 of these live in one process.

import type {
  AgentDescription,
  ComponentHealth,
  EffectiveConfig,
  PackageStatuses,
  RemoteConfigStatus,
  AvailableComponents,
  ConnectionSettingsStatus,
  Session,
} from '../../events/agentData.ts';
import type { InstanceUid } from '../../events/ids.ts';

export interface AgentState {
  readonly uid: InstanceUid;
  /** Unix ms of the first message of this registration (a re-registration after eviction starts anew). */
  readonly firstSeen: number;
  /** Unix ms of the last actual OpAMP message. Never moved by disconnects or the sweep (rule 14). */
  readonly lastSeen: number;
  readonly sequenceNum: bigint;
  readonly capabilities: bigint;
  /** null until the agent sends a description: description_reported is `description !== null`. */
  readonly description: AgentDescription | null;
  /** null until health is reported: health_reported is `health !== null`. */
  readonly health: ComponentHealth | null;
  readonly effectiveConfig: EffectiveConfig | null;
  readonly packages: PackageStatuses | null;
  /** What the agent can run; null until it reports it (kept in memory only). */
  readonly availableComponents: AvailableComponents | null;
  readonly missingAttributes: readonly string[];
  readonly reservedAttributeConflicts: readonly string[];
  readonly complianceUpdatedAt: number | null;
  /** What the agent last reported of its remote config (remote_config_status); null until it does. */
  readonly remoteConfigStatus: RemoteConfigStatus | null;
  /**
   * The config hash last sent to the agent on its current connection, still "in flight" until the
   * agent reports it; null after a (re)connection and before anything was sent.
   */
  readonly offeredConfigHash: string | null;
  /**
   * The config hash the agent went back from (remoteConfig/rollback.ts): never offered again while
   * it is the desired one. Kept across connections; null when the agent did not roll back.
   */
  readonly rolledBackFrom: string | null;
  /** What the agent last reported of its connection settings; null until it does (memory only). */
  readonly connectionSettingsStatus: ConnectionSettingsStatus | null;
  /**
   * The own-telemetry offer hash last sent on the agent's current connection (ownTelemetry/offerRule.ts),
   * in flight until the agent reports it; null after a (re)connection and before anything was sent.
   */
  readonly offeredSettingsHash: string | null;
  /** The last offer hash the agent reported FAILED for: never offered again (memory only). */
  readonly failedSettingsHash: string | null;
  readonly connected: boolean;
  /** The session of the agent's last message (kept after disconnect for display). */
  readonly session: Session;
  /** Unix ms of the last connect/disconnect transition. */
  readonly connectionChangedAt: number;
}

export const noStrings: readonly string[] = Object.freeze([]);

export const isDescriptionReported = (agent: AgentState): boolean => agent.description !== null;
export const isHealthReported = (agent: AgentState): boolean => agent.health !== null;

/**
 * Attribute lookup as the filters see it: identifying attributes first, then non-identifying.
 * Values are always strings, so a string check is an own-key check here (inherited members such as
 * `constructor` are functions) and lets V8 use a plain keyed load, the hot path of every filter.
 */
export function attributeOf(agent: AgentState, key: string): string | undefined {
  const d = agent.description;
  return d === null ? undefined : descriptionAttribute(d, key);
}

/** attributeOf over a description alone (a report not folded yet). */
export function descriptionAttribute(d: AgentDescription, key: string): string | undefined {
  const identifying: unknown = d.identifying[key];
  if (typeof identifying === 'string') return identifying;
  const other: unknown = d.nonIdentifying[key];
  return typeof other === 'string' ? other : undefined;
}

/** The attribute a supervisor-managed agent declares, and the value the OpAMP supervisor sets. */
export const managedByKey = 'opamp.managed_by';
export const supervisorValue = 'opentelemetry-opampsupervisor';

/**
 * True when the agent declares `opamp.managed_by: opentelemetry-opampsupervisor`. False means "not
 * declared", not "not managed".
 */
export const isSupervisorManaged = (agent: AgentState): boolean =>
  attributeOf(agent, managedByKey) === supervisorValue;
