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
 * Every frame the service sends carries the header. A Buffer from Node's pool (most replies are a few
 * dozen bytes), not an ArrayBuffer of its own per reply, and ws sends a Buffer without converting it.
 */
export function frame(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(payload.length + 1);
  out[0] = 0x00;
  out.set(payload, 1);
  return out;
}
