// UUIDv7 (RFC 9562): 48-bit Unix milliseconds, version and variant bits, the rest random.
// Used for server-assigned instance ids (AgentToServerFlags_RequestInstanceUid).

import { randomFillSync } from 'node:crypto';

export function uuidv7Bytes(nowMs: number): Uint8Array {
  const bytes = new Uint8Array(16);
  randomFillSync(bytes, 6);
  let ms = Math.floor(nowMs);
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms & 0xff;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  return bytes;
}
