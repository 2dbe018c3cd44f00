// Composing the ServerToAgent that answers a decision: instance_uid echoed byte for byte, and what
// the decision asks the reply to carry (the full-state flag, the remote config). Pure; the handler
// adds the connection-level parts (server capabilities on the first reply of a WebSocket and on
// every HTTP reply) before encodeReply.

import type { ReplyIntent } from '../../projections/agent/decideAgent.ts';
import { encodeServerToAgent, type ServerToAgentFields } from './codec.ts';
import { remoteConfigField } from './remoteConfigWire.ts';

/** AcceptsStatus | OffersRemoteConfig | AcceptsEffectiveConfig | AcceptsPackagesStatus. */
export const serverCapabilities = 0x1 | 0x2 | 0x4 | 0x10;
export const ReportFullState = 0x1;

export function replyFields(uidBytes: Uint8Array, intent: ReplyIntent): ServerToAgentFields {
  const fields: ServerToAgentFields = { instanceUid: uidBytes };
  if (intent.reportFullState) fields.flags = ReportFullState;
  // CommandType_Restart is 0: the sub-message is present and empty, which protobufjs still encodes.
  if (intent.command === 'restart') fields.command = { type: 0 };
  return fields;
}

/** The encoded reply: the fields, then the remote config (encoded once per desired config). */
export function encodeReply(fields: ServerToAgentFields, intent: ReplyIntent): Uint8Array {
  const head = encodeServerToAgent(fields);
  if (intent.remoteConfig === undefined) return head;
  const tail = remoteConfigField(intent.remoteConfig);
  const out = new Uint8Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}
