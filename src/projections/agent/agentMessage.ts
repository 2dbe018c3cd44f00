// One AgentToServer in domain terms, as the OpAMP adapter hands it to decideAgent: plain data, no
// protobuf objects and no bytes. A sub-message the agent left out is `undefined` ("unchanged",
// OPAMP.md 3.2), never an empty value.

import type {
  AgentDescription,
  AvailableComponents,
  ComponentHealth,
  ConnectionSettingsStatus,
  EffectiveConfig,
  PackageStatuses,
  RemoteConfigStatus,
} from '../../events/agentData.ts';
import type { InstanceUid } from '../../events/ids.ts';
import type { PresentParts } from './fullState.ts';

export interface AgentMessage {
  readonly uid: InstanceUid;
  readonly sequenceNum: bigint;
  readonly capabilities: bigint;
  readonly description: AgentDescription | undefined;
  readonly health: ComponentHealth | undefined;
  readonly effectiveConfig: EffectiveConfig | undefined;
  readonly packageStatuses: PackageStatuses | undefined;
  readonly availableComponents: AvailableComponents | undefined;
  readonly remoteConfigStatus: RemoteConfigStatus | undefined;
  readonly connectionSettingsStatus: ConnectionSettingsStatus | undefined;
  /** The message carried agent_disconnect: the agent says goodbye. */
  readonly disconnect: boolean;
}

export function presentParts(message: AgentMessage): PresentParts {
  return {
    description: message.description !== undefined,
    health: message.health !== undefined,
    effectiveConfig: message.effectiveConfig !== undefined,
    remoteConfigStatus: message.remoteConfigStatus !== undefined,
    packageStatuses: message.packageStatuses !== undefined,
  };
}
