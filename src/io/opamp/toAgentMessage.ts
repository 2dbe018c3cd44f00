// The decoded AgentToServer in domain terms (projections/agent/agentMessage.ts): the one place where
// protobuf shapes become plain data for the decision. Pure.

import type { InstanceUid } from '../../events/ids.ts';
import type { AgentMessage } from '../../projections/agent/agentMessage.ts';
import { toBigUint, type WireAgentToServer } from './codec.ts';
import {
  toDescription,
  toEffectiveConfig,
  toHealth,
  toPackageStatuses,
  toRemoteConfigStatus,
} from './wireToData.ts';

export function toAgentMessage(msg: WireAgentToServer, uid: InstanceUid): AgentMessage {
  return {
    uid,
    sequenceNum: toBigUint(msg.sequenceNum),
    capabilities: toBigUint(msg.capabilities),
    description:
      msg.descriptionData ?? (msg.agentDescription != null ? toDescription(msg.agentDescription) : undefined),
    health: msg.healthData ?? (msg.health != null ? toHealth(msg.health) : undefined),
    effectiveConfig: msg.effectiveConfig != null ? toEffectiveConfig(msg.effectiveConfig) : undefined,
    packageStatuses: msg.packageStatuses != null ? toPackageStatuses(msg.packageStatuses) : undefined,
    remoteConfigStatus:
      msg.remoteConfigStatus != null ? toRemoteConfigStatus(msg.remoteConfigStatus) : undefined,
    disconnect: msg.agentDisconnect != null,
  };
}
