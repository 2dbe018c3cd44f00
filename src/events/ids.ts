// Branded identifiers. The OpAMP adapter converts raw instance_uid bytes to the canonical text form
// once, at the edge; nothing past src/io sees bytes.

/** Canonical lowercase hyphenated UUID for 16-byte ids, or the 26-character ULID string for legacy peers. */
export type InstanceUid = string & { readonly __brand: 'InstanceUid' };

/** One WebSocket connection, or one plain-HTTP request. Unique for the life of the process. */
export type ConnectionId = number & { readonly __brand: 'ConnectionId' };

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ulidPattern = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

/**
 * Parses an id typed by a person (URL path, query): a UUID in any case, or a ULID.
 * Returns undefined for anything else. ULIDs keep their case as the agent sent them, so a ULID is
 * returned as given.
 */
export function parseInstanceUid(text: string): InstanceUid | undefined {
  const lower = text.toLowerCase();
  if (uuidPattern.test(lower)) return lower as InstanceUid;
  if (ulidPattern.test(text)) return text as InstanceUid;
  return undefined;
}
