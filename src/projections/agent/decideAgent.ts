// The decision for one AgentToServer (STYLE 18): given the agent as the registry knows it (or
// undefined), the message in domain terms and its context, it returns the events to publish, the
// agent after them and what the reply must carry. Pure. It folds its own events with evolveAgentAll
// (the registry's fold, evolveAgent, over all of them at once) to know the state after them, so
// nothing is read back from a projection after publishing and the order in which the bus delivers
// is never load-bearing. That fold is the only one: the registry keeps the state decided here
// (registryProjection.ts decided()) instead of folding the events again.
//
// Event order (docs/events.md): AgentConnected? → AgentCheckedIn → AgentStatusReported? →
// AgentHealthReported? → AgentEffectiveConfigReported? → AgentPackageStatusesReported? →
// AgentAvailableComponentsReported? → AgentRemoteConfigReported? → AgentConnectionSettingsReported? →
// AgentComplianceChanged? → AgentFullStateRequested? → AgentRemoteConfigOffered? →
// AgentOwnTelemetryOffered? → AgentDisconnected? (agent_disconnect)

import type { Session } from '../../events/agentData.ts';
import type { AgentEvent } from '../../events/fleetEvent.ts';
import { diffCompliance, evaluateCompliance } from '../compliance/evaluateCompliance.ts';
import type { DesiredConfig } from '../remoteConfig/desiredConfig.ts';
import { shouldOffer } from '../remoteConfig/offerRule.ts';
import { shouldOfferSettings } from '../ownTelemetry/offerRule.ts';
import type { OwnTelemetryFor, OwnTelemetryOffer } from '../ownTelemetry/ownTelemetry.ts';
import { presentParts, type AgentMessage } from './agentMessage.ts';
import type { AgentState } from './agentState.ts';
import { asksForComponents, awaitsComponents, componentsToRecord } from './availableComponents.ts';
import { evolveAgent, evolveAgentAll } from './evolveAgent.ts';
import { decideFullState } from './fullState.ts';

export interface DecisionContext {
  /** When the message arrived (Unix ms). */
  readonly at: number;
  /** The connection it arrived on. */
  readonly session: Session;
  /**
   * The message opened a connection for the agent: the first on a WebSocket that did not hold it
   * (the OpAMP adapter's connection owners know; the session's connectionId is only what was last seen).
   */
  readonly newConnection: boolean;
  /** fleet.required_attributes. */
  readonly requiredAttributes: readonly string[];
  /** The desired remote config of an agent as it stands (the desired-config projection). */
  readonly desiredFor?: ((agent: AgentState) => DesiredConfig | undefined) | undefined;
  /** A command waiting for this agent (a restart job's), taken for this reply. */
  readonly command?: 'restart' | undefined;
  /** Where the agent sends its own telemetry (own_telemetry); nothing offered when absent. */
  readonly ownTelemetryFor?: OwnTelemetryFor | undefined;
}

/** What the ServerToAgent answering the message carries, beyond what every reply carries. */
export interface ReplyIntent {
  /** ServerToAgentFlags_ReportFullState. */
  readonly reportFullState: boolean;
  /** ServerToAgentFlags_ReportAvailableComponents (availableComponents.ts). */
  readonly reportAvailableComponents?: boolean | undefined;
  /** AgentRemoteConfig to send, when the offer rule says so. */
  readonly remoteConfig: DesiredConfig | undefined;
  /** ServerToAgentCommand to send (never with anything else: capable agents run it and skip the rest). */
  readonly command?: 'restart' | undefined;
  /** connection_settings own_metrics / own_logs / own_traces to send, when the offer rule says so. */
  readonly ownTelemetry?: OwnTelemetryOffer | undefined;
}

/** Events for one agent and the agent after them (their fold, as the registry keeps it). */
export interface Decided {
  readonly events: readonly AgentEvent[];
  readonly state: AgentState | undefined;
}

export interface Decision extends Decided {
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
  const components = componentsToRecord(known?.availableComponents ?? null, m.availableComponents);
  if (components) events.push({ type: 'AgentAvailableComponentsReported', at, data: { uid, components } });
  if (m.remoteConfigStatus)
    events.push({ type: 'AgentRemoteConfigReported', at, data: { uid, status: m.remoteConfigStatus } });
  if (m.connectionSettingsStatus)
    events.push({
      type: 'AgentConnectionSettingsReported',
      at,
      data: { uid, status: m.connectionSettingsStatus },
    });
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

/** A new connection for the agent: unknown, disconnected, or a WebSocket that did not hold it. */
const opensConnection = (known: AgentState | undefined, ctx: DecisionContext): boolean =>
  known === undefined || !known.connected || ctx.newConnection;

function offered(uid: AgentState['uid'], desired: DesiredConfig, at: number): AgentEvent {
  const configs = desired.entries.map((e) => ({ name: e.name, revision: e.revision }));
  return { type: 'AgentRemoteConfigOffered', at, data: { uid, hash: desired.hash, configs } };
}

export function decideAgent(
  known: AgentState | undefined,
  message: AgentMessage,
  ctx: DecisionContext,
): Decision {
  // A goodbye from an agent already disconnected (some client libraries send it twice) changes and
  // counts nothing: folding it would connect the agent only to disconnect it again.
  if (message.disconnect && known !== undefined && !known.connected)
    return { events: [], state: known, reply: { reportFullState: false, remoteConfig: undefined } };
  const events = reported(known, message, ctx);
  const after = evolveAgentAll(known, events);
  const { uid } = message;
  // A command goes alone: the agent restarts and reports its full state anyway.
  const command =
    message.disconnect || ctx.command === undefined ? undefined : decideCommand(after, ctx.command, ctx.at);
  if (command !== undefined)
    return { events: [...events, ...command.events], state: command.state, reply: command.reply };
  const reportedCount = events.length;
  const fullState = message.disconnect
    ? null
    : decideFullState(known, after, {
        sequenceNum: message.sequenceNum,
        capabilities: message.capabilities,
        present: presentParts(message),
      });
  if (fullState !== null)
    events.push({ type: 'AgentFullStateRequested', at: ctx.at, data: { uid, reason: fullState } });
  const opens = opensConnection(known, ctx);
  const reportAvailableComponents =
    !message.disconnect &&
    after !== undefined &&
    asksForComponents(after, message.availableComponents, opens);
  // The remote config waits for the full state a reply asks for, and for the available components
  // of a fresh connection (availableComponents.ts awaitsComponents), and is never sent to a
  // departing agent.
  let remoteConfig: DesiredConfig | undefined;
  const waits =
    fullState !== null || message.disconnect || (after !== undefined && awaitsComponents(after, ctx.at));
  if (!waits && after !== undefined && ctx.desiredFor !== undefined) {
    const desired = ctx.desiredFor(after);
    const offer = { newConnection: opens, report: message.remoteConfigStatus };
    if (shouldOffer(after, desired, offer)) {
      events.push(offered(uid, desired, ctx.at));
      remoteConfig = desired;
    }
  }
  let ownTelemetry: OwnTelemetryOffer | undefined;
  if (fullState === null && !message.disconnect && after !== undefined && ctx.ownTelemetryFor !== undefined) {
    const offer = ctx.ownTelemetryFor(after);
    if (shouldOfferSettings(after, offer, { newConnection: opensConnection(known, ctx) })) {
      events.push({
        type: 'AgentOwnTelemetryOffered',
        at: ctx.at,
        data: { uid, hash: offer.hash, signals: offer.signals },
      });
      ownTelemetry = offer;
    }
  }
  if (message.disconnect)
    events.push({ type: 'AgentDisconnected', at: ctx.at, data: { uid, reason: 'agent_disconnect' } });
  // What the decision added after the reports (full state asked, offer, goodbye), folded onto `after`.
  const state = events.length === reportedCount ? after : evolveAgentAll(after, events.slice(reportedCount));
  return {
    events,
    state,
    reply: { reportFullState: fullState !== null, remoteConfig, reportAvailableComponents, ownTelemetry },
  };
}

/** A WebSocket that held the agent closed: it is disconnected. */
export function decideConnectionClosed(
  known: AgentState | undefined,
  uid: AgentState['uid'],
  at: number,
): Decided {
  const event: AgentEvent = { type: 'AgentDisconnected', at, data: { uid, reason: 'connection_closed' } };
  return { events: [event], state: evolveAgent(known, event) };
}

/**
 * A push to a connected agent when its desired config changed (a config was written), without
 * waiting for its next message. Undefined when the offer rule says there is nothing to send.
 */
export function decidePush(
  known: AgentState | undefined,
  desired: DesiredConfig | undefined,
  at: number,
): Decision | undefined {
  if (known === undefined || !known.connected || awaitsComponents(known, at)) return undefined;
  if (!shouldOffer(known, desired, { newConnection: false, report: undefined })) return undefined;
  const event = offered(known.uid, desired, at);
  return {
    events: [event],
    state: evolveAgent(known, event),
    reply: { reportFullState: false, remoteConfig: desired },
  };
}

/** AgentCapabilities_AcceptsRestartCommand. */
export const AcceptsRestartCommand = 0x400n;

/**
 * A command for a connected agent (in a reply, or pushed): only to an agent that declares it accepts
 * it (OPAMP.md: agents without AcceptsRestartCommand ignore it), and alone in its message.
 */
export function decideCommand(
  known: AgentState | undefined,
  command: 'restart',
  at: number,
): Decision | undefined {
  if (known === undefined || !known.connected || (known.capabilities & AcceptsRestartCommand) === 0n)
    return undefined;
  // AgentCommandSent changes nothing the registry holds (evolveAgent returns the agent as it was).
  return {
    events: [{ type: 'AgentCommandSent', at, data: { uid: known.uid, command } }],
    state: known,
    reply: { reportFullState: false, remoteConfig: undefined, command },
  };
}
