// JSON views of one agent (SPEC "Agent views"): the summary item of lists and the detail view. Pure
// functions of AgentState, so registry and store agents render alike. Timestamps are RFC 3339 UTC or
// null, arrays and maps are never null, capabilities/sequence_num stay bigint (see json.ts).

import type { Attributes } from '../../events/agentData.ts';
import { attributeOf, isSupervisorManaged, type AgentState } from '../../projections/agent/agentState.ts';
import { incompatibility, type ComponentTypes } from '../../projections/remoteConfig/componentTypes.ts';
import {
  configStateOf,
  keepsLastApplied,
  type ConfigState,
} from '../../projections/remoteConfig/configState.ts';
import type { DesiredConfig } from '../../projections/remoteConfig/desiredConfig.ts';
import { capabilityFlags, type CapabilityFlags } from './capabilityFlags.ts';
import { healthView, type HealthView } from './healthView.ts';
import { rfc3339FromMs, rfc3339FromNanos } from './time.ts';

/** The attribute a supervisor-managed agent declares (SPEC svc_agents_supervisor_managed). */

export interface AgentSummary {
  readonly instance_uid: string;
  readonly display_name: string;
  readonly host_name: string;
  readonly version: string;
  readonly sequence_num: bigint;
  readonly identifying_attributes: Attributes;
  readonly non_identifying_attributes: Attributes;
  readonly capabilities: bigint;
  readonly capability_flags: CapabilityFlags;
  readonly healthy: boolean;
  readonly health_error: string;
  readonly health_status: string;
  readonly health_start_time: string | null;
  readonly health_status_time: string | null;
  readonly health_reported: boolean;
  readonly description_reported: boolean;
  readonly connected: boolean;
  readonly connection: {
    readonly transport: string;
    readonly via_gateway: boolean;
    readonly remote_addr: string;
    readonly tls_subject: string | null;
  };
  readonly first_seen: string | null;
  readonly last_seen: string | null;
  readonly missing_attributes: readonly string[];
  readonly reserved_attribute_conflicts: readonly string[];
  readonly compliance_updated_at: string | null;
  readonly supervisor_managed: boolean;
  /** Where the agent stands with its remote config (docs/remote-config.md "States"). */
  readonly config_state: ConfigState;
}

export interface RemoteConfigView {
  readonly config_state: ConfigState;
  /** config_hash of the desired config (hex), null when no config targets the agent. */
  readonly desired_hash: string | null;
  readonly desired_configs: readonly { readonly name: string; readonly revision: number }[];
  /** What the agent last reported: last_remote_config_hash (hex), status, error message. */
  readonly reported_hash: string;
  readonly status: string | null;
  readonly error_message: string;
  /** No config targets the agent, but it keeps running the one it last applied. */
  readonly keeps_last_applied: boolean;
  /** The hash the agent took and went back from (remoteConfig/rollback.ts); null when it did not. */
  readonly rolled_back_from: string | null;
  /** When config_state is `incompatible`: kind → the types the desired config names that the agent lacks; else {}. */
  readonly missing_components: ComponentTypes;
}

export interface PackageView {
  readonly name: string;
  readonly status: string;
  readonly agent_has_version: string;
  readonly agent_has_hash: string;
  readonly server_offered_version: string;
  readonly server_offered_hash: string;
  readonly error_message: string;
  readonly download_percent: number | null;
  readonly download_bytes_per_second: number | null;
}

export interface AgentDetail extends AgentSummary {
  /** File name → body. */
  readonly effective_config: Readonly<Record<string, string>>;
  readonly packages: readonly PackageView[];
  readonly packages_hash: string;
  readonly packages_error: string;
  /** The reported component health tree; null until health is reported. */
  readonly health: HealthView | null;
  readonly remote_config: RemoteConfigView;
  /** What the agent can run, kind → types; null until reported (only its hash: empty components). */
  readonly available_components: {
    readonly hash: string;
    readonly components: Readonly<Record<string, readonly string[]>>;
  } | null;
  readonly connection_settings: ConnectionSettingsView;
}

/** Own-telemetry connection settings (docs/own-telemetry.md): what was offered, what the agent says. */
export interface ConnectionSettingsView {
  /** connection_settings_status as last reported; null until the agent reports one. */
  readonly status: {
    readonly hash: string;
    readonly status: string;
    readonly error_message: string;
  } | null;
  /** Hash of the own-telemetry offer sent on the agent's current connection; null when none was. */
  readonly offered_hash: string | null;
  /** The offer hash the agent reported FAILED for: not offered again. */
  readonly failed_hash: string | null;
}

export function connectionSettingsView(agent: AgentState): ConnectionSettingsView {
  const reported = agent.connectionSettingsStatus;
  return {
    status:
      reported === null
        ? null
        : { hash: reported.hash, status: reported.status, error_message: reported.errorMessage },
    offered_hash: agent.offeredSettingsHash,
    failed_hash: agent.failedSettingsHash,
  };
}

const noAttributes: Attributes = Object.freeze({});

/** service.name, else host.name, else the instance UID. */
export function displayName(agent: AgentState): string {
  return attributeOf(agent, 'service.name') || attributeOf(agent, 'host.name') || agent.uid;
}

/** `desired` is the agent's desired remote config (the desired-config projection's answer). */
export function agentSummary(agent: AgentState, desired?: DesiredConfig): AgentSummary {
  const { health, session } = agent;
  return {
    instance_uid: agent.uid,
    display_name: displayName(agent),
    host_name: attributeOf(agent, 'host.name') ?? '',
    version: attributeOf(agent, 'service.version') ?? '',
    sequence_num: agent.sequenceNum,
    identifying_attributes: agent.description?.identifying ?? noAttributes,
    non_identifying_attributes: agent.description?.nonIdentifying ?? noAttributes,
    capabilities: agent.capabilities,
    capability_flags: capabilityFlags(agent.capabilities),
    healthy: health?.healthy ?? false,
    health_error: health?.lastError ?? '',
    health_status: health?.status ?? '',
    health_start_time: health ? rfc3339FromNanos(health.startTimeNanos) : null,
    health_status_time: health ? rfc3339FromNanos(health.statusTimeNanos) : null,
    health_reported: health !== null,
    description_reported: agent.description !== null,
    connected: agent.connected,
    connection: {
      transport: session.transport,
      via_gateway: session.viaGateway,
      remote_addr: session.remoteAddr,
      tls_subject: session.tlsSubject,
    },
    first_seen: rfc3339FromMs(agent.firstSeen),
    last_seen: rfc3339FromMs(agent.lastSeen),
    missing_attributes: agent.missingAttributes,
    reserved_attribute_conflicts: agent.reservedAttributeConflicts,
    compliance_updated_at: rfc3339FromMs(agent.complianceUpdatedAt),
    supervisor_managed: isSupervisorManaged(agent),
    config_state: configStateOf(agent, desired),
  };
}

export function remoteConfigView(agent: AgentState, desired: DesiredConfig | undefined): RemoteConfigView {
  const reported = agent.remoteConfigStatus;
  const state = configStateOf(agent, desired);
  const missing = state === 'incompatible' && desired && incompatibility(agent.availableComponents, desired);
  return {
    config_state: state,
    desired_hash: desired?.hash ?? null,
    desired_configs: desired?.entries.map((e) => ({ name: e.name, revision: e.revision })) ?? [],
    reported_hash: reported?.hash ?? '',
    status: reported?.status ?? null,
    error_message: reported?.errorMessage ?? '',
    keeps_last_applied: keepsLastApplied(agent, desired),
    rolled_back_from: agent.rolledBackFrom,
    missing_components: missing || {},
  };
}

function packageViews(agent: AgentState): PackageView[] {
  const packages = agent.packages?.packages ?? {};
  return Object.keys(packages)
    .sort()
    .flatMap((key) => {
      const p = packages[key];
      if (p === undefined) return [];
      return [
        {
          name: p.name || key,
          status: p.status,
          agent_has_version: p.agentHasVersion,
          agent_has_hash: p.agentHasHash,
          server_offered_version: p.serverOfferedVersion,
          server_offered_hash: p.serverOfferedHash,
          error_message: p.errorMessage,
          download_percent: p.downloadPercent,
          download_bytes_per_second: p.downloadBytesPerSecond,
        },
      ];
    });
}

/** `showBody` is how this caller sees config bodies (auth.ts bodyShownTo: whole or redacted). */
export function agentDetail(
  agent: AgentState,
  desired?: DesiredConfig,
  showBody: (body: string) => string = (body) => body,
): AgentDetail {
  const effectiveConfig: Record<string, string> = {};
  for (const [name, file] of Object.entries(agent.effectiveConfig ?? {}))
    effectiveConfig[name] = showBody(file.body);
  return {
    ...agentSummary(agent, desired),
    effective_config: effectiveConfig,
    packages: packageViews(agent),
    packages_hash: agent.packages?.serverProvidedAllPackagesHash ?? '',
    packages_error: agent.packages?.errorMessage ?? '',
    health: agent.health === null ? null : healthView(agent.health),
    remote_config: remoteConfigView(agent, desired),
    available_components: agent.availableComponents,
    connection_settings: connectionSettingsView(agent),
  };
}
