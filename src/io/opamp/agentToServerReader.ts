// The fast path of AgentToServer decoding: the fields the service reads, straight from the bytes into
// the WireAgentToServer shape, without protobufjs's message classes, Long objects or reflection.
// Conservative on purpose: whatever it does not decode exactly as protobufjs would (a field it does
// not read, a wire type that does not match, invalid UTF-8, a repeated singular message, which
// protobufjs merges, a second member of a oneof, deep nesting, truncation) makes it give up, and
// codec.ts decodes the message with protobufjs, which then decides, and throws on malformed input.
// A new field the service reads must be added here or it is decoded by protobufjs alone (slower,
// never wrong). spec/io/opamp/agentToServerReader.spec.ts holds both decoders to the same results.

import { isUtf8 } from 'node:buffer';
import type { WireAgentToServer, WireAnyValue, WireComponentHealth, WireKeyValue } from './codec.ts';

/** Thrown inside, caught by readAgentToServer: "let protobufjs decode this one". One instance, so giving up costs no stack capture. */
class GiveUp extends Error {}
const giveUp = new GiveUp('let protobufjs decode this message');
const maxDepth = 32;
const noBytes: Uint8Array = new Uint8Array(0);
/** Shared by every health without components; replaced by a fresh object at the first entry. */
const noComponents: Record<string, WireComponentHealth> = Object.freeze({});

class Reader {
  readonly buf: Buffer;
  pos: number;
  end: number;
  constructor(buf: Buffer, pos: number, end: number) {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
  }

  /** A varint that fits 32 bits (tags, lengths, enums). */
  uint32(): number {
    const { buf } = this;
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (this.pos >= this.end) throw giveUp;
      const b = buf[this.pos++]!;
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) {
        if (value > 0xffffffff) throw giveUp;
        return value;
      }
    }
    throw giveUp;
  }

  /** An unsigned 64-bit varint, exact. */
  uint64(): bigint {
    const { buf } = this;
    let low = 0;
    for (let shift = 0; shift < 49; shift += 7) {
      if (this.pos >= this.end) throw giveUp;
      const b = buf[this.pos++]!;
      low += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return BigInt(low);
    }
    let value = BigInt(low);
    for (let shift = 49n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) throw giveUp;
      const b = buf[this.pos++]!;
      value |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, value);
    }
    throw giveUp;
  }

  fixed64(): bigint {
    if (this.pos + 8 > this.end) throw giveUp;
    const value = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return value;
  }

  double(): number {
    if (this.pos + 8 > this.end) throw giveUp;
    const value = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }

  /** The end of a length-delimited field that starts here. */
  delimited(): number {
    const length = this.uint32();
    const end = this.pos + length;
    if (end > this.end) throw giveUp;
    return end;
  }

  bytes(): Uint8Array {
    const end = this.delimited();
    const value = this.buf.subarray(this.pos, end);
    this.pos = end;
    return value;
  }

  /** UTF-8 text, rejected (given up) when invalid, as protobufjs's strict reading rejects it. */
  string(): string {
    const end = this.delimited();
    const { buf, pos } = this;
    this.pos = end;
    let ascii = true;
    for (let i = pos; i < end; i++) {
      if (buf[i]! >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) return buf.toString('latin1', pos, end);
    const text = buf.toString('utf8', pos, end);
    // Invalid sequences decode to U+FFFD; a valid one yields U+FFFD only from its own EF BF BD bytes.
    if (text.includes('\ufffd') && !isUtf8(buf.subarray(pos, end))) throw giveUp;
    return text;
  }

  /** A sub-message: runs `read` on a reader limited to it. */
  message<T>(read: (r: Reader) => T): T {
    const end = this.delimited();
    const outer = this.end;
    this.end = end;
    const value = read(this);
    if (this.pos !== end) throw giveUp;
    this.end = outer;
    return value;
  }
}

/** Reads the tag of the next field and checks its wire type; gives up on anything unexpected. */
function expectWireType(tag: number, wireType: number): void {
  if ((tag & 7) !== wireType) throw giveUp;
}

function anyValue(r: Reader, depth: number): WireAnyValue {
  if (depth > maxDepth) throw giveUp;
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
        v.boolValue = r.uint64() !== 0n;
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
        v.arrayValue = r.message((a) => ({ values: repeated(a, 1, (x) => anyValue(x, depth + 1)) }));
        v.value = 'arrayValue';
        break;
      case 6:
        expectWireType(tag, 2);
        v.kvlistValue = r.message((l) => ({ values: repeated(l, 1, (x) => keyValue(x, depth + 1)) }));
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
  return v;
}

/** A message whose only field `field` is a repeated sub-message. */
function repeated<T>(r: Reader, field: number, read: (r: Reader) => T): T[] {
  const out: T[] = [];
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag !== ((field << 3) | 2)) throw giveUp;
    out.push(r.message(read));
  }
  return out;
}

function keyValue(r: Reader, depth: number): WireKeyValue {
  let key = '';
  let value: WireAnyValue | undefined;
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === 0x0a) key = r.string();
    else if (tag === 0x12 && value === undefined) value = r.message((x) => anyValue(x, depth + 1));
    else throw giveUp;
  }
  return value === undefined ? { key } : { key, value };
}

function health(r: Reader, depth: number): WireComponentHealth {
  if (depth > maxDepth) throw giveUp;
  const h: WireComponentHealth = {
    healthy: false,
    startTimeUnixNano: 0n,
    lastError: '',
    status: '',
    statusTimeUnixNano: 0n,
    componentHealthMap: noComponents,
  };
  while (r.pos < r.end) {
    const tag = r.uint32();
    switch (tag) {
      case 0x08:
        h.healthy = r.uint64() !== 0n;
        break;
      case 0x11:
        h.startTimeUnixNano = r.fixed64();
        break;
      case 0x1a:
        h.lastError = r.string();
        break;
      case 0x22:
        h.status = r.string();
        break;
      case 0x29:
        h.statusTimeUnixNano = r.fixed64();
        break;
      case 0x32: {
        if (h.componentHealthMap === noComponents) h.componentHealthMap = {};
        const [name, child] = r.message((e) => mapEntry(e, (x) => health(x, depth + 1)));
        h.componentHealthMap[name] = child;
        break;
      }
      default:
        throw giveUp;
    }
  }
  return h;
}

/** A map entry {1: string key, 2: message value}; both must be there. */
function mapEntry<T>(r: Reader, read: (r: Reader) => T): [string, T] {
  let key: string | undefined;
  let value: T | undefined;
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === 0x0a) key = r.string();
    else if (tag === 0x12 && value === undefined) value = r.message(read);
    else throw giveUp;
  }
  if (key === undefined || value === undefined || key === '__proto__') throw giveUp;
  return [key, value];
}

function configFile(r: Reader): { body: Uint8Array; contentType: string } {
  const file: { body: Uint8Array; contentType: string } = { body: noBytes, contentType: '' };
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === 0x0a) file.body = r.bytes();
    else if (tag === 0x12) file.contentType = r.string();
    else throw giveUp;
  }
  return file;
}

function effectiveConfig(r: Reader): NonNullable<WireAgentToServer['effectiveConfig']> {
  const files: Record<string, { body: Uint8Array; contentType: string }> = {};
  let seen = false;
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag !== 0x0a || seen) throw giveUp;
    seen = true;
    r.message((m) => {
      while (m.pos < m.end) {
        if (m.uint32() !== 0x0a) throw giveUp;
        const [name, file] = m.message((e) => mapEntry(e, configFile));
        files[name] = file;
      }
    });
  }
  return seen ? { configMap: { configMap: files } } : {};
}

function remoteConfigStatus(r: Reader): NonNullable<WireAgentToServer['remoteConfigStatus']> {
  const s: NonNullable<WireAgentToServer['remoteConfigStatus']> = {
    lastRemoteConfigHash: noBytes,
    status: 0,
    errorMessage: '',
  };
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === 0x0a) s.lastRemoteConfigHash = r.bytes();
    else if (tag === 0x10) {
      s.status = r.uint32();
      if (s.status > 0x7fffffff) throw giveUp;
    } else if (tag === 0x1a) s.errorMessage = r.string();
    else throw giveUp;
  }
  return s;
}

function description(r: Reader): NonNullable<WireAgentToServer['agentDescription']> {
  const d = { identifyingAttributes: [] as WireKeyValue[], nonIdentifyingAttributes: [] as WireKeyValue[] };
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag === 0x0a) d.identifyingAttributes.push(r.message((x) => keyValue(x, 0)));
    else if (tag === 0x12) d.nonIdentifyingAttributes.push(r.message((x) => keyValue(x, 0)));
    else throw giveUp;
  }
  return d;
}

function agentToServer(r: Reader): WireAgentToServer {
  const msg: WireAgentToServer = { instanceUid: noBytes, sequenceNum: 0n, capabilities: 0n, flags: 0n };
  while (r.pos < r.end) {
    const tag = r.uint32();
    switch (tag) {
      case 0x0a:
        msg.instanceUid = r.bytes();
        break;
      case 0x10:
        msg.sequenceNum = r.uint64();
        break;
      case 0x1a:
        if (msg.agentDescription != null) throw giveUp;
        msg.agentDescription = r.message(description);
        break;
      case 0x20:
        msg.capabilities = r.uint64();
        break;
      case 0x2a:
        if (msg.health != null) throw giveUp;
        msg.health = r.message((x) => health(x, 0));
        break;
      case 0x32:
        if (msg.effectiveConfig != null) throw giveUp;
        msg.effectiveConfig = r.message(effectiveConfig);
        break;
      case 0x3a:
        if (msg.remoteConfigStatus != null) throw giveUp;
        msg.remoteConfigStatus = r.message(remoteConfigStatus);
        break;
      case 0x4a:
        // AgentDisconnect is empty: its presence is the signal.
        if (r.uint32() !== 0) throw giveUp;
        msg.agentDisconnect = {};
        break;
      case 0x50:
        msg.flags = r.uint64();
        break;
      default:
        throw giveUp;
    }
  }
  return msg;
}

/** The decoded message, or undefined when protobufjs must decode it (see the file comment). */
export function readAgentToServer(bytes: Uint8Array): WireAgentToServer | undefined {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    return agentToServer(new Reader(buf, 0, buf.length));
  } catch (error) {
    if (error === giveUp) return undefined;
    throw error;
  }
}
