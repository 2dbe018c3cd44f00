// Composing the ServerToAgent that answers a decision: instance_uid echoed byte for byte, and what
// the decision asks the reply to carry (the full-state flag, the remote config, own-telemetry
// connection settings). Pure; the handler
// adds the connection-level parts (server capabilities on the first reply of a WebSocket and on
// every HTTP reply) before encodeReply.

import type { ReplyIntent } from '../../projections/agent/decideAgent.ts';
import type { Encoder } from './codec.ts';
import { ownTelemetrySettings } from './ownTelemetryWire.ts';
import type { ServerToAgentFields } from './wireTypes.ts';

/** AcceptsStatus | OffersRemoteConfig | AcceptsEffectiveConfig | AcceptsPackagesStatus. */
export const serverCapabilities = 0x1 | 0x2 | 0x4 | 0x10;
export const ReportFullState = 0x1;
export const ReportAvailableComponents = 0x2;
/**
 * OffersConnectionSettings | AcceptsConnectionSettingsRequest: declared with the agent CA, which
 * answers CSRs with an offer of OpAMP connection settings (certificateOffer.ts).
 */
export const certificateCapabilities = 0x20 | 0x40;

export function replyFields(uidBytes: Uint8Array, intent: ReplyIntent): ServerToAgentFields {
  const fields: ServerToAgentFields = { instanceUid: uidBytes };
  const flags =
    (intent.reportFullState ? ReportFullState : 0) |
    (intent.reportAvailableComponents === true ? ReportAvailableComponents : 0);
  if (flags !== 0) fields.flags = flags;
  // CommandType_Restart is 0: the sub-message is present and empty, which protobufjs still encodes.
  if (intent.command === 'restart') fields.command = { type: 0 };
  if (intent.ownTelemetry !== undefined)
    fields.connectionSettings = ownTelemetrySettings(intent.ownTelemetry);
  return fields;
}

/**
 * A reply on the wire in two parts: the agent's own fields, then the remote config field shared by
 * every agent with the same desired config (encoded once). Transports send the two one after the
 * other (a WebSocket message in two frames, an HTTP body in two writes), so a large config pushed to
 * a fleet is never copied per agent.
 */
export interface WireReply {
  readonly head: Uint8Array;
  readonly tail: Uint8Array | undefined;
}

/** `head` starts with `headroom` zero bytes for the transport's framing (codec.ts). */
export function encodeReply(
  encoder: Encoder,
  fields: ServerToAgentFields,
  intent: ReplyIntent,
  headroom = 0,
): WireReply {
  const head = encoder.encode(fields, headroom);
  return {
    head,
    tail: intent.remoteConfig === undefined ? undefined : encoder.remoteConfigField(intent.remoteConfig),
  };
}

/** The reply as one buffer (tools and specs that decode it). */
export function joined(reply: WireReply): Uint8Array {
  if (reply.tail === undefined) return reply.head;
  const out = new Uint8Array(reply.head.length + reply.tail.length);
  out.set(reply.head);
  out.set(reply.tail, reply.head.length);
  return out;
}
