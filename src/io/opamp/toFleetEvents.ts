// The pure translation: a decoded AgentToServer plus what the registry knows of the agent becomes the
// ordered list of domain events (order documented in src/events/fleetEvent.ts and docs/events.md).
// Full-state decisions and agent_disconnect are added by the handler, which sees the folded state.

import type { Session } from '../../events/agentData.ts';
import type { AgentEvent } from '../../events/fleetEvent.ts';
import type { InstanceUid } from '../../events/ids.ts';
import { diffCompliance, evaluateCompliance } from '../../projections/compliance/evaluateCompliance.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import type { PresentParts } from '../../projections/agent/fullState.ts';
import { toBigUint, type WireAgentToServer } from './codec.ts';
import { toDescription, toEffectiveConfig, toHealth, toPackageStatuses } from './wireToData.ts';

export interface TranslationContext {
  readonly uid: InstanceUid;
  readonly at: number;
  readonly session: Session;
  readonly requiredAttributes: readonly string[];
}

export interface Translation {
  readonly events: AgentEvent[];
  readonly sequenceNum: bigint;
  readonly capabilities: bigint;
  readonly present: PresentParts;
  readonly disconnecting: boolean;
}

export function presentParts(msg: WireAgentToServer): PresentParts {
  return {
    description: msg.agentDescription != null,
    health: msg.health != null,
    effectiveConfig: msg.effectiveConfig != null,
    remoteConfigStatus: msg.remoteConfigStatus != null,
    packageStatuses: msg.packageStatuses != null,
  };
}

export function toFleetEvents(
  msg: WireAgentToServer,
  known: AgentState | undefined,
  ctx: TranslationContext,
): Translation {
  const { uid, at, session } = ctx;
  const events: AgentEvent[] = [];
  const sequenceNum = toBigUint(msg.sequenceNum);
  const capabilities = toBigUint(msg.capabilities);

  if (known === undefined || !known.connected)
    events.push({ type: 'AgentConnected', at, data: { uid, session } });
  events.push({ type: 'AgentCheckedIn', at, data: { uid, session, sequenceNum, capabilities } });

  const description = msg.agentDescription != null ? toDescription(msg.agentDescription) : undefined;
  if (description) events.push({ type: 'AgentStatusReported', at, data: { uid, description } });
  if (msg.health != null)
    events.push({ type: 'AgentHealthReported', at, data: { uid, health: toHealth(msg.health) } });
  if (msg.effectiveConfig != null)
    events.push({
      type: 'AgentEffectiveConfigReported',
      at,
      data: { uid, config: toEffectiveConfig(msg.effectiveConfig) },
    });
  if (msg.packageStatuses != null)
    events.push({
      type: 'AgentPackageStatusesReported',
      at,
      data: { uid, packages: toPackageStatuses(msg.packageStatuses) },
    });
  if (description) {
    const before = known ?? { missingAttributes: [], reservedAttributeConflicts: [] };
    const change = diffCompliance(
      { missing: before.missingAttributes, conflicts: before.reservedAttributeConflicts },
      evaluateCompliance(description, ctx.requiredAttributes),
    );
    if (change) events.push({ type: 'AgentComplianceChanged', at, data: { uid, ...change } });
  }

  return {
    events,
    sequenceNum,
    capabilities,
    present: presentParts(msg),
    disconnecting: msg.agentDisconnect != null,
  };
}
