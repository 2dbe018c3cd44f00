// AnyValue and KeyValue (anyvalue.proto) for the fast AgentToServer decoder (agentToServerReader.ts):
// each reader starts at a length-delimited sub-message and reads it whole, giving up (protobufjs then
// decodes) on a second oneof member, an unknown field or nesting deeper than maxDepth.

import type { WireAnyValue, WireKeyValue } from './wireTypes.ts';
import { giveUp, type Reader } from './protoReader.ts';

export const maxDepth = 32;

/** Gives up unless the field's wire type is the one expected. */
export function expectWireType(tag: number, wireType: number): void {
  if ((tag & 7) !== wireType) throw giveUp;
}

function anyValue(r: Reader, depth: number): WireAnyValue {
  if (depth > maxDepth) throw giveUp;
  const outer = r.enter();
  const v: WireAnyValue = {};
  while (r.pos < r.end) {
    if (v.value !== undefined) throw giveUp; // a second oneof member
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        expectWireType(tag, 2);
        v.stringValue = r.string();
        v.value = 'stringValue';
        break;
      case 2:
        expectWireType(tag, 0);
        v.boolValue = r.bool();
        v.value = 'boolValue';
        break;
      case 3:
        expectWireType(tag, 0);
        v.intValue = r.uint64();
        v.value = 'intValue';
        break;
      case 4:
        expectWireType(tag, 1);
        v.doubleValue = r.double();
        v.value = 'doubleValue';
        break;
      case 5:
        expectWireType(tag, 2);
        v.arrayValue = { values: anyValues(r, depth + 1) };
        v.value = 'arrayValue';
        break;
      case 6:
        expectWireType(tag, 2);
        v.kvlistValue = { values: keyValues(r, depth + 1) };
        v.value = 'kvlistValue';
        break;
      case 7:
        expectWireType(tag, 2);
        v.bytesValue = r.bytes();
        v.value = 'bytesValue';
        break;
      default:
        throw giveUp;
    }
  }
  r.leave(outer);
  return v;
}

/** ArrayValue {repeated AnyValue values = 1}. */
function anyValues(r: Reader, depth: number): WireAnyValue[] {
  const outer = r.enter();
  const out: WireAnyValue[] = [];
  while (r.pos < r.end) {
    if (r.uint32() !== 0x0a) throw giveUp;
    out.push(anyValue(r, depth));
  }
  r.leave(outer);
  return out;
}

/** KeyValueList {repeated KeyValue values = 1}. */
function keyValues(r: Reader, depth: number): WireKeyValue[] {
  const outer = r.enter();
  const out: WireKeyValue[] = [];
  while (r.pos < r.end) {
    if (r.uint32() !== 0x0a) throw giveUp;
    out.push(keyValue(r, depth));
  }
  r.leave(outer);
  return out;
}

export function keyValue(r: Reader, depth: number): WireKeyValue {
  const outer = r.enter();
  let key = '';
  let value: WireAnyValue | undefined;
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === 0x0a) key = r.string();
    else if (tag === 0x12 && value === undefined) value = anyValue(r, depth + 1);
    else throw giveUp;
  }
  r.leave(outer);
  return value === undefined ? { key } : { key, value };
}
