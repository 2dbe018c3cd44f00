// The one message handler both transports feed. For every AgentToServer it returns exactly one
// ServerToAgent: decode → look up → decide → publish → compose and encode the reply. What the reply
// carries comes out of the decision (projections/agent/decideAgent.ts) as data; the handler never
// reads a projection back after publishing. Protocol noise (bad bytes, bad ids) is a value: an error
// reply, counted, nothing stored.
// Contract: never called concurrently for one connection; calls arrive in message order, and when
// handle() returns a promise (the first message of an id whose binding to the connection's
// credential is not known: agentAdmission.ts) the transport waits for it before the next message.

import type { EventBus } from '../../events/bus.ts';
import type { InstanceUid } from '../../events/ids.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import type { ReportLimits } from '../../projections/agent/reportLimits.ts';
import type { AgentMessage } from '../../projections/agent/agentMessage.ts';
import {
  decideAgent,
  decideCommand,
  decideConnectionClosed,
  decidePush,
  type Decided,
} from '../../projections/agent/decideAgent.ts';
import type { DesiredConfig } from '../../projections/remoteConfig/desiredConfig.ts';
import type { OwnTelemetryFor } from '../../projections/ownTelemetry/ownTelemetry.ts';
import { OffersConnectionSettings } from './ownTelemetryWire.ts';
import type { RegistryProjection } from '../../projections/registry/registryProjection.ts';
import { admitOn, type AdmitOutcome, type AgentAdmission } from './agentAdmission.ts';
import { admitAhead } from './admitAhead.ts';
import type { Encoder } from './codec.ts';
import type { CommandQueue } from './commandQueue.ts';
import type { OpampConnection } from './connection.ts';
import type { Claim, ConnectionOwners } from './connectionOwners.ts';
import type { CertificateOffers } from './certificateOffer.ts';
import { brokenRule } from './messageRules.ts';
import { isGatewayConnect } from './gateway.ts';
import { instanceUidBytes } from './instanceUid.ts';
import { refusalReply } from './refusal.ts';
import { serverCapabilities } from './reply.ts';
import { toAgentMessage } from './toAgentMessage.ts';
import type { DecodedAgentToServer } from './decodedAgentToServer.ts';
import type { HandleResult, PendingResult, ProtocolObserver } from './handleResult.ts';
import { createHandlerReplies } from './handlerReplies.ts';
import type { Decoder } from './decoder.ts';

const RequestInstanceUid = 0x1n;

export type { HandleResult, PendingResult, ProtocolObserver } from './handleResult.ts';
export { handledNow } from './handleResult.ts';

export interface HandlerDeps {
  readonly bus: EventBus;
  /** The core's decoder and encoder (they keep their caches; the composition creates them). */
  readonly decoder: Decoder;
  readonly encoder: Encoder;
  /** Read for what is known of an agent; told what was decided when the bus delivers later. */
  readonly registry: Pick<RegistryProjection, 'get' | 'decided' | 'size'>;
  readonly now: () => number;
  readonly requiredAttributes: readonly string[];
  /** agents.limits: what one report may hold (reportLimits.ts); a report past one is refused. */
  readonly reportLimits?: ReportLimits | undefined;
  readonly observer: ProtocolObserver;
  /** Each agent's desired remote config (the desired-config projection); none offered when absent. */
  readonly desiredFor?: ((agent: AgentState) => DesiredConfig | undefined) | undefined;
  /** Where each agent sends its own telemetry (own_telemetry); none offered when absent. */
  readonly ownTelemetryFor?: OwnTelemetryFor | undefined;
  /** Whether a connection's credential may speak for an id (agentAdmission.ts); all may when absent. */
  readonly admission?: AgentAdmission | undefined;
  /** fleet.max_agents: a new agent past it is refused (Unavailable); unlimited when absent. */
  readonly maxAgents?: number | undefined;
  /** Which connection holds which agent (connectionOwners.ts); the handler claims and binds. */
  readonly owners: ConnectionOwners;
  /** Answers agents' CSRs (agents.ca); CSRs are ignored and not declared when absent. */
  readonly certificates?: CertificateOffers | undefined;
  /** Commands waiting for agents held here (restart jobs). */
  readonly commands?: CommandQueue | undefined;
  /** Sees every inbound message's raw bytes before decoding (traffic recording). Must not throw. */
  readonly onInbound?: ((connection: OpampConnection, payload: Uint8Array, at: number) => void) | undefined;
  /** Sees every closed WebSocket, with the time its agents are disconnected at (recording). Must not throw. */
  readonly onClosed?: ((connection: OpampConnection, at: number) => void) | undefined;
}

export interface OpampHandler {
  handle(connection: OpampConnection, payload: Uint8Array): PendingResult;
  /** A WebSocket closed: every agent still bound to it is disconnected at once. */
  closed(connection: OpampConnection): void;
  /**
   * Sends the agent now, over the WebSocket it is connected on, the command waiting for it, else its
   * desired remote config when the offer rule says so (decidePush). False when nothing was sent: not
   * held here over a WebSocket, or nothing to send. Never called concurrently with handle() (one
   * thread), so it cannot race a message of the same agent.
   */
  push(uid: InstanceUid): boolean;
  /**
   * A message that waits behind another of its connection (before its handle() call): what it will
   * wait for is asked now (admitAhead.ts). Changes nothing the handling of any message sees.
   */
  ahead?(connection: OpampConnection, payload: Uint8Array): void;
}

export function createOpampHandler(deps: HandlerDeps): OpampHandler {
  const { bus, registry, now, observer, owners, decoder, encoder } = deps;
  const capabilities =
    serverCapabilities |
    (deps.certificates?.capabilities ?? 0) |
    (deps.ownTelemetryFor ? OffersConnectionSettings : 0);
  const { reject, refuse, compose, gatewayConnect, assignInstanceUid } = createHandlerReplies({
    bus,
    encoder,
    observer,
    capabilities,
  });

  /**
   * Publishes one agent's events. The registry first learns the state they lead to (the decision's
   * fold, kept rather than folded again), so the agent's next message, maybe in the same socket read
   * on a bus that delivers later, is decided after them.
   */
  function publish(uid: InstanceUid, { state, events }: Decided): void {
    registry.decided(uid, state, events);
    for (let i = 0; i < events.length; i++) bus.publish(events[i]!);
  }

  function handle(connection: OpampConnection, payload: Uint8Array): PendingResult {
    const at = now();
    observer.messageReceived();
    deps.onInbound?.(connection, payload, at);
    let msg: DecodedAgentToServer;
    try {
      msg = decoder.decode(payload);
    } catch (error) {
      const reason = `undecodable AgentToServer: ${(error as Error).message}`;
      observer.messageFailed(reason);
      return { ok: false, reply: null, error: reason };
    }
    if (isGatewayConnect(msg)) return gatewayConnect(connection, msg, at);
    const uidBytes = msg.instanceUid;
    const uid = connection.instanceUid(uidBytes);
    if (uid === undefined)
      return reject(
        connection,
        uidBytes,
        `instance_uid must be 16 bytes or a 26-character ULID, got ${uidBytes.length} bytes`,
      );
    if ((msg.flags & RequestInstanceUid) !== 0n) return assignInstanceUid(connection, uidBytes, at);
    try {
      return admitThenHandle(connection, msg, uid, uidBytes, at);
    } catch (error) {
      return failed(connection, uidBytes, error);
    }
  }

  /**
   * Hostile input must not throw out of the handler: translation and decision are pure and run
   * before anything is published, so a throw (e.g. a RangeError) leaves the registry as it was.
   */
  function failed(connection: OpampConnection, uidBytes: Uint8Array, error: unknown): HandleResult {
    return reject(connection, uidBytes, `message could not be processed: ${(error as Error).message}`);
  }

  /**
   * Rules first, then the credential (synchronous once known; agentAdmission.ts), then the decision.
   * A message that waited for the store is checked again: the connection may have closed, another
   * may have claimed the id, the fleet may have filled meanwhile.
   */
  function admitThenHandle(
    connection: OpampConnection,
    msg: DecodedAgentToServer,
    uid: InstanceUid,
    uidBytes: Uint8Array,
    at: number,
  ): PendingResult {
    const message = toAgentMessage(msg, uid);
    const claim = owners.claim(uid, connection);
    const known = registry.get(uid);
    const broken = brokenRule(deps, connection, message, claim, known, registry.size);
    if (broken !== undefined) return refuse(connection, uidBytes, broken.reason, broken.text);
    const admission = deps.admission && admitOn(deps.admission, owners, connection, uid, at);
    const csr = msg.certificateRequest;
    if (admission === undefined)
      return handleAgentMessage(connection, message, uidBytes, at, claim as Claim, known, csr);
    if (!(admission instanceof Promise))
      return refuse(connection, uidBytes, admission.reason, admission.text);
    return admission.then((refusal: AdmitOutcome): HandleResult => {
      if (refusal !== undefined) return refuse(connection, uidBytes, refusal.reason, refusal.text);
      if (connection.closed) return { ok: false, reply: null, error: 'connection closed' };
      try {
        const again = owners.claim(uid, connection);
        const current = registry.get(uid);
        const late = brokenRule(deps, connection, message, again, current, registry.size, true);
        if (late !== undefined) return refuse(connection, uidBytes, late.reason, late.text);
        return handleAgentMessage(connection, message, uidBytes, at, again as Claim, current, csr);
      } catch (error) {
        return failed(connection, uidBytes, error);
      }
    });
  }

  function handleAgentMessage(
    connection: OpampConnection,
    message: AgentMessage,
    uidBytes: Uint8Array,
    at: number,
    claim: Claim,
    known: AgentState | undefined,
    certificateRequest: Uint8Array | undefined,
  ): HandleResult {
    const uid = message.uid;
    // After the id's binding is known: a CSR is answered only for the id this credential holds.
    const csr =
      certificateRequest &&
      deps.certificates?.answer(connection, owners, uid, uidBytes, certificateRequest, at, () => {
        const agent = registry.get(uid);
        return agent && deps.ownTelemetryFor?.(agent);
      });
    // Counted by the offers under the CSR's own reason; answered BadRequest, nothing folded.
    if (csr !== undefined && 'refused' in csr)
      return refusalReply(encoder, connection, uidBytes, 'csr', csr.refused);
    const command = message.disconnect ? undefined : deps.commands?.peek(uid);
    const decision = decideAgent(known, message, {
      at,
      session: connection.session(),
      newConnection: connection.transport === 'ws' && claim !== 'held',
      requiredAttributes: deps.requiredAttributes,
      desiredFor: deps.desiredFor,
      command,
      ownTelemetryFor: deps.ownTelemetryFor,
    });
    // A command leaves its queue only when the reply carries it (one the agent cannot take stays).
    if (decision.reply.command !== undefined) deps.commands?.take(uid);
    publish(uid, decision);
    if (message.disconnect) owners.release(uid, connection);
    else if (claim !== 'held') owners.bind(uid, connection);
    const { head, tail } = compose(connection, uidBytes, decision.reply);
    return { ok: true, reply: head, tail, after: csr?.after };
  }

  function closed(connection: OpampConnection): void {
    const at = now();
    connection.closed = true;
    deps.onClosed?.(connection, at);
    // Exactly the agents this connection still holds: one that moved to another socket, said
    // goodbye or was disconnected by the liveness sweep is no longer among them.
    for (const uid of owners.releaseAll(connection))
      publish(uid, decideConnectionClosed(registry.get(uid), uid, at));
    if (connection.isGateway)
      bus.publish({ type: 'GatewayConnectionClosed', at, data: { connectionId: connection.id } });
  }

  function push(uid: InstanceUid): boolean {
    const target = owners.holderOf(uid);
    if (target?.send === undefined) return false;
    const known = registry.get(uid);
    if (known === undefined) return false;
    const command = deps.commands?.peek(uid);
    const decision =
      command !== undefined
        ? decideCommand(known, command, now())
        : decidePush(known, deps.desiredFor?.(known), now());
    if (decision === undefined) return false;
    if (command !== undefined) deps.commands?.take(uid);
    publish(uid, decision);
    const { head, tail } = compose(target, instanceUidBytes(uid), decision.reply);
    target.send(head, tail);
    return true;
  }

  const ahead = (connection: OpampConnection, payload: Uint8Array): void =>
    admitAhead(deps, connection, payload);

  return { handle, closed, push, ahead };
}
