// The decoded AgentToServer as the decision's message (projections/agent/agentMessage.ts): the
// report the decoder made, with the canonical id the connection resolved. Pure.

import type { InstanceUid } from '../../events/ids.ts';
import type { AgentMessage } from '../../projections/agent/agentMessage.ts';
import type { DecodedAgentToServer } from './decodedAgentToServer.ts';

export function toAgentMessage(msg: DecodedAgentToServer, uid: InstanceUid): AgentMessage {
  return {
    uid,
    sequenceNum: msg.sequenceNum,
    capabilities: msg.capabilities,
    description: msg.description,
    health: msg.health,
    effectiveConfig: msg.effectiveConfig,
    packageStatuses: msg.packageStatuses,
    availableComponents: msg.availableComponents,
    remoteConfigStatus: msg.remoteConfigStatus,
    connectionSettingsStatus: msg.connectionSettingsStatus,
    disconnect: msg.disconnect,
  };
}
