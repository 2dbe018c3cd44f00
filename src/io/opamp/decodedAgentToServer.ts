// What the decoder (decoder.ts) makes of one AgentToServer: the report in the domain's terms (the
// decision's AgentMessage but for the canonical id, which the connection resolves), and the parts
// of the envelope the handler reads (the raw instance_uid it echoes, the flags, a custom message).
// Either decoding path (the fast reader, or protobufjs then translation) gives this one shape, so
// nothing after the decoder chooses between two.

import type { AgentMessage } from '../../projections/agent/agentMessage.ts';

export interface CustomMessage {
  readonly capability: string;
  readonly type: string;
  readonly data: Uint8Array;
}

export interface DecodedAgentToServer extends Omit<AgentMessage, 'uid'> {
  /** The bytes as sent (echoed in the reply, made canonical by the connection). */
  readonly instanceUid: Uint8Array;
  readonly flags: bigint;
  /** Only the gateway handshake uses one (gateway.ts). */
  readonly customMessage: CustomMessage | undefined;
  /**
   * connection_settings_request.opamp.certificate_request.csr as sent (PEM bytes, maybe empty) when
   * the agent asks for a certificate (certificateOffer.ts); undefined when it does not.
   */
  readonly certificateRequest: Uint8Array | undefined;
}
