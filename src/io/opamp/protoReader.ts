// Reading protobuf wire bytes for the fast AgentToServer decoder (agentToServerReader.ts): varints,
// fixed64, length-delimited fields and UTF-8 text, over a Buffer, with the tables of the decoder
// that reads (ReadTables; no module-level state). Whatever is out of the ordinary
// (truncation, a varint too long, invalid UTF-8) throws `giveUp`, the one signal that protobufjs must
// decode the message instead.

import { isAscii, isUtf8 } from 'node:buffer';
import type { ComponentHealth } from '../../events/agentData.ts';

/** Thrown inside, caught by readAgentToServer: "let protobufjs decode this one". One instance, so giving up costs no stack capture. */
class GiveUp extends Error {}
export const giveUp = new GiveUp('let protobufjs decode this message');

// Short ASCII strings repeat from message to message and from agent to agent (attribute keys and
// values, component names, status texts): the last string seen in each slot of a small table is
// handed out again when the bytes match. It saves building and collecting a string per field, and
// agents' records share one copy of each repeated value. The slot comes from the length and five of
// the bytes (both ends and the middle), not from all of them: the byte-by-byte comparison with the
// string in the slot decides anyway, and a string that shares a slot with another is only built anew.
const internMaxLength = 64;
const internMask = 4095;

/** The last value a fixed64 field read, for Reader#fixed64Repeated: its bytes are a view of `word`. */
export interface RepeatedFixed64 {
  readonly word: BigUint64Array;
  readonly bytes: Uint8Array;
  value: bigint | undefined;
}

export function repeatedFixed64(): RepeatedFixed64 {
  const word = new BigUint64Array(1);
  return { word, bytes: new Uint8Array(word.buffer), value: undefined };
}

/**
 * What one decoder keeps from message to message (decoder.ts owns one): the intern table, and the
 * last timestamps of a health tree.
 */
export interface ReadTables {
  /** The string in each slot, and its bytes in one flat arena (a slot's bytes at slot × 64):
   * comparing against the arena reads memory that stays in cache, not a string somewhere on the heap. */
  readonly internTable: (string | undefined)[];
  readonly internLengths: Uint8Array;
  readonly internBytes: Uint8Array;
  readonly startTime: RepeatedFixed64;
  readonly statusTime: RepeatedFixed64;
  /**
   * The last health node read at each depth of a health tree (healthReader.ts): an equal node is
   * handed out again instead of a copy.
   */
  readonly lastHealth: (ComponentHealth | undefined)[];
  /** The component names of each of `lastHealth`, in order. */
  readonly lastHealthNames: (readonly string[] | undefined)[];
}

export function createReadTables(): ReadTables {
  return {
    internTable: new Array<string | undefined>(internMask + 1).fill(undefined),
    internLengths: new Uint8Array(internMask + 1),
    internBytes: new Uint8Array((internMask + 1) * internMaxLength),
    startTime: repeatedFixed64(),
    statusTime: repeatedFixed64(),
    lastHealth: [],
    lastHealthNames: [],
  };
}

function internSlot(buf: Buffer, pos: number, length: number): number {
  const last = pos + length - 1;
  let h = Math.imul(length ^ buf[pos]!, 0x9e3779b1);
  h = Math.imul(h ^ buf[pos + 1]!, 0x85ebca6b);
  h = Math.imul(h ^ buf[pos + (length >> 1)]!, 0xc2b2ae35);
  h = Math.imul(h ^ buf[last - 1]!, 0x27d4eb2f);
  h = Math.imul(h ^ buf[last]!, 0x165667b1);
  return (h >>> 19) & internMask;
}

/** The string of the `length` bytes at `pos` when the slot holds it; undefined otherwise. */
function internedAt(
  t: ReadTables,
  buf: Buffer,
  pos: number,
  length: number,
  slot: number,
): string | undefined {
  if (t.internLengths[slot] !== length) return undefined;
  const base = slot * internMaxLength;
  const bytes = t.internBytes;
  for (let i = 0; i < length; i++) if (bytes[base + i] !== buf[pos + i]) return undefined;
  return t.internTable[slot];
}

function intern(t: ReadTables, buf: Buffer, pos: number, length: number, slot: number, text: string): void {
  t.internTable[slot] = text;
  t.internLengths[slot] = length;
  t.internBytes.set(buf.subarray(pos, pos + length), slot * internMaxLength);
}

function isAsciiAt(buf: Buffer, pos: number, end: number): boolean {
  for (let i = pos; i < end; i++) if (buf[i]! >= 0x80) return false;
  return true;
}

/** A map key that protobufjs would store differently on a plain object gives up. */
export function checkMapKey(key: string | undefined): string {
  if (key === undefined || key === '__proto__') throw giveUp;
  return key;
}

export class Reader {
  readonly buf: Buffer;
  pos: number;
  end: number;
  readonly tables: ReadTables;
  constructor(buf: Buffer, pos: number, end: number, tables: ReadTables) {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
    this.tables = tables;
  }

  /** A varint that fits 32 bits (tags, lengths, enums); most are one byte. */
  uint32(): number {
    const { buf } = this;
    if (this.pos < this.end && buf[this.pos]! < 0x80) return buf[this.pos++]!;
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

  /** A varint read as a bool, as protobufjs reads one: true when any of its (at most ten) bytes has a bit set. */
  bool(): boolean {
    const { buf } = this;
    let bits = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw giveUp;
      const b = buf[this.pos++]!;
      bits |= b & 0x7f;
      if (b < 0x80) return bits !== 0;
    }
    throw giveUp;
  }

  /**
   * A fixed64, handing out the BigInt of the previous read through `last` when the eight bytes are the
   * same: timestamps repeat across a health tree (components start with their collector) and across
   * agents, and each BigInt is a heap object an agent's record would otherwise keep a copy of. One
   * BigInt allocated otherwise (Buffer#readBigUInt64LE builds four).
   */
  fixed64Repeated(last: RepeatedFixed64): bigint {
    if (this.pos + 8 > this.end) throw giveUp;
    const { buf, pos } = this;
    const bytes = last.bytes;
    let same = last.value !== undefined;
    for (let i = 0; i < 8; i++) {
      const b = buf[pos + i]!;
      if (bytes[i] !== b) {
        same = false;
        bytes[i] = b;
      }
    }
    this.pos += 8;
    if (same) return last.value!;
    last.value = last.word[0]!;
    return last.value;
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
    const length = end - pos;
    if (length <= internMaxLength) {
      if (length < 2) {
        if (length === 0) return '';
        if (buf[pos]! < 0x80) return String.fromCharCode(buf[pos]!);
      } else {
        // Every string in the table is ASCII, so a match is too.
        const slot = internSlot(buf, pos, length);
        const known = internedAt(this.tables, buf, pos, length, slot);
        if (known !== undefined) return known;
        if (isAsciiAt(buf, pos, end)) {
          const text = buf.toString('latin1', pos, end);
          intern(this.tables, buf, pos, length, slot, text);
          return text;
        }
      }
    } else if (isAscii(buf.subarray(pos, end))) return buf.toString('latin1', pos, end);
    const text = buf.toString('utf8', pos, end);
    // Invalid sequences decode to U+FFFD; a valid one yields U+FFFD only from its own EF BF BD bytes.
    if (text.includes('\ufffd') && !isUtf8(buf.subarray(pos, end))) throw giveUp;
    return text;
  }

  /** Enters a sub-message: limits the reader to it and returns the outer limit for leave(). */
  enter(): number {
    const end = this.delimited();
    const outer = this.end;
    this.end = end;
    return outer;
  }

  leave(outer: number): void {
    if (this.pos !== this.end) throw giveUp;
    this.end = outer;
  }
}
