// The decision for one AgentToServer (STYLE 18): given the agent as the registry knows it (or
// undefined), the message in domain terms and its context, it returns the events to publish and
// what the reply must carry. Pure. It folds its own events with evolveAgent, the fold the registry
// uses, to know the state after them, so nothing is read back from a projection after publishing
// and the order in which the bus delivers is never load-bearing.
//
// Event order (docs/events.md): AgentConnected? → AgentCheckedIn → AgentStatusReported? →
// AgentHealthReported? → AgentEffectiveConfigReported? → AgentPackageStatusesReported? →
// AgentComplianceChanged? → AgentFullStateRequested? → AgentDisconnected? (agent_disconnect)

import type { Session } from '../../events/agentData.ts';
import type { AgentEvent } from '../../events/fleetEvent.ts';
import { diffCompliance, evaluateCompliance } from '../compliance/evaluateCompliance.ts';
import { presentParts, type AgentMessage } from './agentMessage.ts';
import type { AgentState } from './agentState.ts';
import { evolveAgent } from './evolveAgent.ts';
import { decideFullState } from './fullState.ts';

export interface DecisionContext {
  /** When the message arrived (Unix ms). */
  readonly at: number;
  /** The connection it arrived on. */
  readonly session: Session;
  /** fleet.required_attributes. */
  readonly requiredAttributes: readonly string[];
}

/** What the ServerToAgent answering the message carries, beyond what every reply carries. */
export interface ReplyIntent {
  /** ServerToAgentFlags_ReportFullState. */
  readonly reportFullState: boolean;
}

export interface Decision {
  readonly events: readonly AgentEvent[];
  readonly reply: ReplyIntent;
}

/** The facts the message states, in the documented order (no decision yet). */
function reported(known: AgentState | undefined, m: AgentMessage, ctx: DecisionContext): AgentEvent[] {
  const { uid } = m;
  const { at, session } = ctx;
  const events: AgentEvent[] = [];
  if (known === undefined || !known.connected)
    events.push({ type: 'AgentConnected', at, data: { uid, session } });
  events.push({
    type: 'AgentCheckedIn',
    at,
    data: { uid, session, sequenceNum: m.sequenceNum, capabilities: m.capabilities },
  });
  if (m.description)
    events.push({ type: 'AgentStatusReported', at, data: { uid, description: m.description } });
  if (m.health) events.push({ type: 'AgentHealthReported', at, data: { uid, health: m.health } });
  if (m.effectiveConfig)
    events.push({ type: 'AgentEffectiveConfigReported', at, data: { uid, config: m.effectiveConfig } });
  if (m.packageStatuses)
    events.push({ type: 'AgentPackageStatusesReported', at, data: { uid, packages: m.packageStatuses } });
  if (m.description) {
    const before = known ?? { missingAttributes: [], reservedAttributeConflicts: [] };
    const change = diffCompliance(
      { missing: before.missingAttributes, conflicts: before.reservedAttributeConflicts },
      evaluateCompliance(m.description, ctx.requiredAttributes),
    );
    if (change) events.push({ type: 'AgentComplianceChanged', at, data: { uid, ...change } });
  }
  return events;
}

export function decideAgent(
  known: AgentState | undefined,
  message: AgentMessage,
  ctx: DecisionContext,
): Decision {
  const events = reported(known, message, ctx);
  let after = known;
  for (let i = 0; i < events.length; i++) after = evolveAgent(after, events[i]!);
  const { uid } = message;
  const fullState = message.disconnect
    ? null
    : decideFullState(known, after, {
        sequenceNum: message.sequenceNum,
        capabilities: message.capabilities,
        present: presentParts(message),
      });
  if (fullState !== null)
    events.push({ type: 'AgentFullStateRequested', at: ctx.at, data: { uid, reason: fullState } });
  if (message.disconnect)
    events.push({ type: 'AgentDisconnected', at: ctx.at, data: { uid, reason: 'agent_disconnect' } });
  return { events, reply: { reportFullState: fullState !== null } };
}
