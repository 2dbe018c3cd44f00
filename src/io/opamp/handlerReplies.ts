// The replies of the one message handler (handler.ts) that are not a decision's: a bad request, a
// refusal by a rule, a gateway's connect answer, a fresh instance id; and the server capabilities
// every first reply carries. Each is encoded after the connection's reply headroom.

import type { EventBus } from '../../events/bus.ts';
import type { ReplyIntent } from '../../projections/agent/decideAgent.ts';
import type { Encoder } from './codec.ts';
import type { OpampConnection } from './connection.ts';
import type { DecodedAgentToServer } from './decodedAgentToServer.ts';
import { answerGatewayConnect, gatewayCustomCapabilities } from './gateway.ts';
import type { HandleResult, ProtocolObserver } from './handleResult.ts';
import { refusalReply } from './refusal.ts';
import { encodeReply, ReportFullState, replyFields, type WireReply } from './reply.ts';
import { uuidv7Bytes } from './uuidv7.ts';
import type { ServerToAgentFields } from './wireTypes.ts';

const BadRequest = 1;
const notAGateway =
  'this credential may not declare a gateway (agents.tokens[].gateway, agents.gateway_certificates)';

export interface HandlerReplies {
  /** A bad request (an unreadable id, a message that could not be processed): counted as failed. */
  readonly reject: (connection: OpampConnection, uidBytes: Uint8Array, error: string) => HandleResult;
  /** A readable message refused by a rule (refusal.ts): counted, logged by the host, nothing folded. */
  readonly refuse: (
    connection: OpampConnection,
    uidBytes: Uint8Array,
    reason: string,
    text: string,
  ) => HandleResult;
  /** A decision's reply, with the server capabilities when they are due. */
  readonly compose: (connection: OpampConnection, uidBytes: Uint8Array, intent: ReplyIntent) => WireReply;
  /** A gateway's connect message: answered, or refused when its credential may not be one (issue 29). */
  readonly gatewayConnect: (
    connection: OpampConnection,
    msg: DecodedAgentToServer,
    at: number,
  ) => HandleResult;
  /** An agent that asked for an instance id (RequestInstanceUid) gets a fresh one. */
  readonly assignInstanceUid: (connection: OpampConnection, uidBytes: Uint8Array, at: number) => HandleResult;
}

export function createHandlerReplies(deps: {
  readonly bus: EventBus;
  readonly encoder: Encoder;
  readonly observer: ProtocolObserver;
  /** The server capability bits (reply.ts, plus the CSR flow's and own telemetry's). */
  readonly capabilities: number;
}): HandlerReplies {
  const { bus, encoder, observer, capabilities } = deps;

  function reject(connection: OpampConnection, uidBytes: Uint8Array, error: string): HandleResult {
    observer.messageFailed(error);
    const reply = encoder.encode(
      { instanceUid: uidBytes, errorResponse: { type: BadRequest, errorMessage: error } },
      connection.replyHeadroom,
    );
    return { ok: false, reply, error };
  }

  /** A readable message refused by a rule (refusal.ts): counted, logged by the host, nothing folded. */
  function refuse(
    connection: OpampConnection,
    uidBytes: Uint8Array,
    reason: string,
    text: string,
  ): HandleResult {
    observer.refused?.(reason, connection.remoteAddr);
    return refusalReply(encoder, connection, uidBytes, reason, text);
  }

  /** Server capabilities on every HTTP reply and on the first reply of each WebSocket. */
  function withCapabilities(connection: OpampConnection, fields: ServerToAgentFields): ServerToAgentFields {
    if (connection.transport === 'http' || !connection.replied) {
      fields.capabilities = capabilities;
      fields.customCapabilities = gatewayCustomCapabilities;
    }
    connection.replied = true;
    return fields;
  }

  function compose(connection: OpampConnection, uidBytes: Uint8Array, intent: ReplyIntent): WireReply {
    return encodeReply(
      encoder,
      withCapabilities(connection, replyFields(uidBytes, intent)),
      intent,
      connection.replyHeadroom,
    );
  }

  function gatewayConnect(connection: OpampConnection, msg: DecodedAgentToServer, at: number): HandleResult {
    const cm = msg.customMessage;
    if (cm === undefined) throw new Error('gatewayConnect without a custom message');
    // With credentials, only one allowed to be a gateway may declare one (issue 29; admission.ts).
    const admission = connection.admission;
    if (admission?.credential !== undefined && admission.gateway !== true)
      return refuse(connection, new Uint8Array(), 'gateway_not_allowed', notAGateway);
    const answer = answerGatewayConnect(cm.capability, cm.data);
    const firstOnConnection = !connection.isGateway;
    if (answer.accepted) connection.isGateway = true;
    bus.publish({
      type: 'GatewayConnectAnswered',
      at,
      data: {
        connectionId: connection.id,
        accepted: answer.accepted,
        firstOnConnection: firstOnConnection && answer.accepted,
      },
    });
    const reply = encoder.encode(
      withCapabilities(connection, {
        instanceUid: new Uint8Array(),
        customMessage: { capability: answer.capability, type: 'connectResult', data: answer.data },
      }),
      connection.replyHeadroom,
    );
    return { ok: true, reply };
  }

  function assignInstanceUid(connection: OpampConnection, uidBytes: Uint8Array, at: number): HandleResult {
    const reply = encoder.encode(
      withCapabilities(connection, {
        instanceUid: uidBytes,
        agentIdentification: { newInstanceUid: uuidv7Bytes(at) },
        flags: ReportFullState,
      }),
      connection.replyHeadroom,
    );
    return { ok: true, reply };
  }

  return { reject, refuse, compose, gatewayConnect, assignInstanceUid };
}
