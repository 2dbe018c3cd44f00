// The registry fold for one agent: evolveAgent(agent | undefined, event) → agent | undefined.
// Pure; returns the same reference when nothing changed. Reports merge field by field: an omitted
// sub-message never reaches here, so "unchanged" is simply "no event".
// evolveAgentAll folds several events at once (a message's, in the decision) into one new record
// instead of one per event; spec/projections/agent/evolveAgent.spec.ts holds it to the event-by-event
// fold.

import type { AgentEvent } from '../../events/fleetEvent.ts';
import { rolledBackFrom } from '../remoteConfig/rollback.ts';
import { noStrings, type AgentState } from './agentState.ts';

type Draft = { -readonly [K in keyof AgentState]: AgentState[K] };

/** A new registration (AgentConnected for an unknown agent). */
function registered(event: Extract<AgentEvent, { type: 'AgentConnected' }>): AgentState {
  const { uid, session } = event.data;
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
    availableComponents: null,
    missingAttributes: noStrings,
    reservedAttributeConflicts: noStrings,
    complianceUpdatedAt: null,
    remoteConfigStatus: null,
    offeredConfigHash: null,
    rolledBackFrom: null,
    connectionSettingsStatus: null,
    offeredSettingsHash: null,
    failedSettingsHash: null,
    connected: true,
    session,
    connectionChangedAt: event.at,
  };
}

/** Whether `event` changes a known agent (AgentEvicted is not asked: it removes the agent). */
function changes(agent: AgentState, event: AgentEvent): boolean {
  switch (event.type) {
    case 'AgentConnected':
      return !(agent.connected && agent.session === event.data.session);
    case 'AgentDisconnected':
      // SPEC rule 14: a disconnect never moves last_seen.
      return agent.connected;
    case 'AgentFullStateRequested':
    case 'AgentCommandSent':
    case 'AgentEvicted':
      return false;
    default:
      return true;
  }
}

/** Writes what `event` changes into `draft`, a record this fold made and nobody else holds yet. */
function write(draft: Draft, event: AgentEvent): void {
  switch (event.type) {
    case 'AgentConnected':
      // A new connection: whatever was sent on the old one may never have arrived.
      draft.connected = true;
      draft.session = event.data.session;
      draft.connectionChangedAt = event.at;
      draft.offeredConfigHash = null;
      draft.offeredSettingsHash = null;
      return;
    case 'AgentCheckedIn':
      draft.lastSeen = event.at;
      draft.session = event.data.session;
      draft.sequenceNum = event.data.sequenceNum;
      draft.capabilities = event.data.capabilities;
      return;
    case 'AgentStatusReported':
      draft.description = event.data.description;
      return;
    case 'AgentHealthReported':
      draft.health = event.data.health;
      return;
    case 'AgentEffectiveConfigReported':
      draft.effectiveConfig = event.data.config;
      return;
    case 'AgentPackageStatusesReported':
      draft.packages = event.data.packages;
      return;
    case 'AgentAvailableComponentsReported':
      draft.availableComponents = event.data.components;
      return;
    case 'AgentRemoteConfigReported':
      draft.rolledBackFrom = rolledBackFrom(
        draft.remoteConfigStatus,
        event.data.status,
        draft.offeredConfigHash,
        draft.rolledBackFrom,
      );
      draft.remoteConfigStatus = event.data.status;
      return;
    case 'AgentRemoteConfigOffered':
      draft.offeredConfigHash = event.data.hash;
      return;
    case 'AgentConnectionSettingsReported':
      draft.connectionSettingsStatus = event.data.status;
      if (event.data.status.status === 'failed') draft.failedSettingsHash = event.data.status.hash;
      return;
    case 'AgentOwnTelemetryOffered':
      draft.offeredSettingsHash = event.data.hash;
      return;
    case 'AgentComplianceChanged':
      draft.missingAttributes = event.data.missing;
      draft.reservedAttributeConflicts = event.data.conflicts;
      draft.complianceUpdatedAt = event.at;
      return;
    case 'AgentDisconnected':
      draft.connected = false;
      draft.connectionChangedAt = event.at;
      return;
    case 'AgentFullStateRequested':
    case 'AgentCommandSent':
    case 'AgentEvicted':
      return;
    default: {
      const _exhaustive: never = event;
      return;
    }
  }
}

export function evolveAgent(agent: AgentState | undefined, event: AgentEvent): AgentState | undefined {
  if (agent === undefined) return event.type === 'AgentConnected' ? registered(event) : undefined;
  if (event.type === 'AgentEvicted') return undefined;
  if (!changes(agent, event)) return agent;
  const next: Draft = { ...agent };
  write(next, event);
  return next;
}

/** The same as folding evolveAgent over `events`, with at most one new record. */
export function evolveAgentAll(
  agent: AgentState | undefined,
  events: readonly AgentEvent[],
): AgentState | undefined {
  let state = agent;
  /** Whether `state` is a record made here (written in place) rather than `agent` or given. */
  let own = false;
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (state === undefined) {
      if (event.type === 'AgentConnected') {
        state = registered(event);
        own = true;
      }
    } else if (event.type === 'AgentEvicted') {
      state = undefined;
      own = false;
    } else if (changes(state, event)) {
      if (!own) {
        state = { ...state };
        own = true;
      }
      write(state, event);
    }
  }
  return state;
}
