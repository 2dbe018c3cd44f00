// instance_uid at the edge (OPAMP.md pitfall 2): 16 bytes → canonical lowercase UUID; 26 bytes of
// Crockford base32 → the ULID string as sent; anything else is invalid. Converted once, here.

import type { InstanceUid } from '../../events/ids.ts';

const hexDigits = Buffer.from('0123456789abcdef', 'latin1');
const ulid = /^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$/;
/** The canonical text is written into this buffer and read out as one flat string: the registry's
 * Map hashes it on every message, and a string built by concatenation must be flattened first. */
const text = Buffer.alloc(36, '-');
const textAt = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

export function toInstanceUid(bytes: Uint8Array): InstanceUid | undefined {
  if (bytes.length === 16) {
    for (let i = 0; i < 16; i++) {
      const b = bytes[i]!;
      const at = textAt[i]!;
      text[at] = hexDigits[b >>> 4]!;
      text[at + 1] = hexDigits[b & 15]!;
    }
    return text.toString('latin1') as InstanceUid;
  }
  if (bytes.length === 26) {
    const text = String.fromCharCode(...bytes);
    return ulid.test(text) ? (text as InstanceUid) : undefined;
  }
  return undefined;
}

/** The bytes an agent with this id sends (a pushed reply names the agent with them; tools, specs). */
export function instanceUidBytes(uid: string): Uint8Array {
  if (uid.length === 26) return new TextEncoder().encode(uid);
  return Uint8Array.from(Buffer.from(uid.replaceAll('-', ''), 'hex'));
}
