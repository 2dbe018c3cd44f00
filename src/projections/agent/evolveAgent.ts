// The registry fold for one agent: evolveAgent(agent | undefined, event) → agent | undefined.
// Pure; returns the same reference when nothing changed. Reports merge field by field: an omitted
// sub-message never reaches here, so "unchanged" is simply "no event".

import type { AgentEvent } from '../../events/fleetEvent.ts';
import { noStrings, type AgentState } from './agentState.ts';

export function evolveAgent(agent: AgentState | undefined, event: AgentEvent): AgentState | undefined {
  switch (event.type) {
    case 'AgentConnected': {
      const { uid, session } = event.data;
      if (agent === undefined) {
        return {
          uid,
          firstSeen: event.at,
          lastSeen: event.at,
          sequenceNum: 0n,
          capabilities: 0n,
          description: null,
          health: null,
          effectiveConfig: null,
          packages: null,
          missingAttributes: noStrings,
          reservedAttributeConflicts: noStrings,
          complianceUpdatedAt: null,
          remoteConfigStatus: null,
          offeredConfigHash: null,
          connected: true,
          session,
          connectionChangedAt: event.at,
        };
      }
      if (agent.connected && agent.session === session) return agent;
      // A new connection: whatever was sent on the old one may never have arrived.
      return { ...agent, connected: true, session, connectionChangedAt: event.at, offeredConfigHash: null };
    }
    case 'AgentCheckedIn': {
      if (agent === undefined) return agent;
      const { session, sequenceNum, capabilities } = event.data;
      return { ...agent, lastSeen: event.at, session, sequenceNum, capabilities };
    }
    case 'AgentStatusReported':
      return agent && { ...agent, description: event.data.description };
    case 'AgentHealthReported':
      return agent && { ...agent, health: event.data.health };
    case 'AgentEffectiveConfigReported':
      return agent && { ...agent, effectiveConfig: event.data.config };
    case 'AgentPackageStatusesReported':
      return agent && { ...agent, packages: event.data.packages };
    case 'AgentRemoteConfigReported':
      return agent && { ...agent, remoteConfigStatus: event.data.status };
    case 'AgentRemoteConfigOffered':
      return agent && { ...agent, offeredConfigHash: event.data.hash };
    case 'AgentComplianceChanged':
      return (
        agent && {
          ...agent,
          missingAttributes: event.data.missing,
          reservedAttributeConflicts: event.data.conflicts,
          complianceUpdatedAt: event.at,
        }
      );
    case 'AgentFullStateRequested':
    case 'AgentCommandSent':
      return agent;
    case 'AgentDisconnected':
      // SPEC rule 14: a disconnect never moves last_seen.
      if (agent === undefined || !agent.connected) return agent;
      return { ...agent, connected: false, connectionChangedAt: event.at };
    case 'AgentEvicted':
      return undefined;
    default: {
      const _exhaustive: never = event;
      return agent;
    }
  }
}
