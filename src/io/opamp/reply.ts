// Composing the ServerToAgent that answers a decision: instance_uid echoed byte for byte, and what
// the decision asks the reply to carry. Pure; the handler adds the connection-level parts (server
// capabilities on the first reply of a WebSocket and on every HTTP reply) and encodes.

import type { ReplyIntent } from '../../projections/agent/decideAgent.ts';
import type { ServerToAgentFields } from './codec.ts';

/** AcceptsStatus | AcceptsEffectiveConfig | AcceptsPackagesStatus. */
export const serverCapabilities = 0x1 | 0x4 | 0x10;
export const ReportFullState = 0x1;

export function replyFields(uidBytes: Uint8Array, intent: ReplyIntent): ServerToAgentFields {
  const fields: ServerToAgentFields = { instanceUid: uidBytes };
  if (intent.reportFullState) fields.flags = ReportFullState;
  return fields;
}
