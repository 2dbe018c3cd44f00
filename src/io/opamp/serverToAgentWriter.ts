// The fast path of ServerToAgent encoding, for the replies the service sends on every message:
// instance_uid, flags, capabilities and custom capabilities, written straight into one buffer
// without protobufjs's message instance and writer operations. Byte for byte what protobufjs writes
// for the same fields: in field order, leaving out an empty instance_uid and zero flags or
// capabilities, writing a custom_capabilities message whenever it is set.
// Any other field, or a value it does not expect, leaves the reply to protobufjs (codec.ts), so a
// field added to ServerToAgentFields is never dropped here. spec/io/opamp/serverToAgentWriter.spec.ts
// compares both encoders.

import type { ServerToAgentFields } from './wireTypes.ts';

const fastFields = new Set<string>(['instanceUid', 'flags', 'capabilities', 'customCapabilities']);

function varintSize(n: number): number {
  let size = 1;
  while (n > 0x7f) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

function writeVarint(out: Buffer, at: number, n: number): number {
  while (n > 0x7f) {
    out[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[at++] = n;
  return at;
}

const isSmallUint = (n: unknown): n is number =>
  typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 && n <= 0xffffffff;

/**
 * The custom_capabilities field (tag, length and message) of `list`. Undefined when a member is not
 * a string (protobufjs decides).
 */
function customCapabilitiesField(list: readonly string[]): Uint8Array | undefined {
  let size = 0;
  for (const name of list) {
    if (typeof name !== 'string') return undefined;
    const length = Buffer.byteLength(name);
    size += 1 + varintSize(length) + length;
  }
  const out = Buffer.alloc(1 + varintSize(size) + size);
  out[0] = 0x52;
  let at = writeVarint(out, 1, size);
  for (const name of list) {
    out[at++] = 0x0a;
    at = writeVarint(out, at, Buffer.byteLength(name));
    at += out.write(name, at);
  }
  return out;
}

/** The encoded reply after `headroom` zero bytes, or undefined when protobufjs must encode it. */
export type ServerToAgentWriter = (fields: ServerToAgentFields, headroom?: number) => Uint8Array | undefined;

/**
 * A writer that encodes the custom_capabilities field once per list: every first reply carries the
 * same list object, and writing its strings took as long as the rest of the reply. Only a frozen
 * list is taken from memory (one that can change is encoded every time).
 */
export function createServerToAgentWriter(): ServerToAgentWriter {
  let lastList: readonly string[] | undefined;
  let lastField: Uint8Array | undefined;
  const customField = (list: readonly string[]): Uint8Array | undefined => {
    if (list === lastList && lastField !== undefined && Object.isFrozen(list)) return lastField;
    const field = customCapabilitiesField(list);
    if (field !== undefined) {
      lastList = list;
      lastField = field;
    }
    return field;
  };
  return (fields, headroom = 0) => writeServerToAgent(fields, headroom, customField);
}

function writeServerToAgent(
  fields: ServerToAgentFields,
  headroom: number,
  customField: (list: readonly string[]) => Uint8Array | undefined,
): Uint8Array | undefined {
  for (const key in fields) if (!fastFields.has(key)) return undefined;
  const { instanceUid, flags, capabilities, customCapabilities } = fields;
  if (!(instanceUid instanceof Uint8Array)) return undefined;
  if (flags != null && !isSmallUint(flags)) return undefined;
  if (capabilities != null && !isSmallUint(capabilities)) return undefined;
  let custom: Uint8Array | undefined;
  if (customCapabilities != null) {
    for (const key in customCapabilities) if (key !== 'capabilities') return undefined;
    const list = customCapabilities.capabilities;
    if (!Array.isArray(list)) return undefined;
    custom = customField(list);
    if (custom === undefined) return undefined;
  }
  const uidSize = instanceUid.length > 0 ? 1 + varintSize(instanceUid.length) + instanceUid.length : 0;
  const flagsSize = flags ? 1 + varintSize(flags) : 0;
  const capabilitiesSize = capabilities ? 1 + varintSize(capabilities) : 0;
  const size = uidSize + flagsSize + capabilitiesSize + (custom !== undefined ? custom.length : 0);
  const out = Buffer.allocUnsafe(headroom + size);
  let at = 0;
  while (at < headroom) out[at++] = 0;
  if (uidSize > 0) {
    out[at++] = 0x0a;
    at = writeVarint(out, at, instanceUid.length);
    out.set(instanceUid, at);
    at += instanceUid.length;
  }
  if (flags) {
    out[at++] = 0x30;
    at = writeVarint(out, at, flags);
  }
  if (capabilities) {
    out[at++] = 0x38;
    at = writeVarint(out, at, capabilities);
  }
  if (custom !== undefined) out.set(custom, at);
  return out;
}
