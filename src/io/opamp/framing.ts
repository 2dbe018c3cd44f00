// WebSocket framing (OPAMP.md 1.1): a varint header (only 0 is defined) before the protobuf bytes.
// A frame whose first byte is 0x00 carries the header; anything else is a legacy header-less frame,
// which is unambiguous because a protobuf message never starts with 0x00. Pure.

export type Unframed =
  { readonly ok: true; readonly payload: Uint8Array } | { readonly ok: false; readonly reason: string };

export function unframe(frame: Uint8Array): Unframed {
  if (frame.length === 0) return { ok: false, reason: 'empty frame' };
  if (frame[0] === 0x00) return { ok: true, payload: frame.subarray(1) };
  return { ok: true, payload: frame };
}

/**
 * Every frame the service sends carries the header: one zero byte. The WebSocket transport has its
 * replies encoded after that much room (OpampConnection.replyHeadroom), already a frame.
 */
export const frameHeaderBytes = 1;

/** `payload` framed (tools and specs that send or compare frames). */
export function frame(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(payload.length + 1);
  out[0] = 0x00;
  out.set(payload, 1);
  return out;
}
