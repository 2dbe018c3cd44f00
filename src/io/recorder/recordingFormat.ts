// The recording format (docs/recording-format.md): a magic, a version, a JSON header, then
// length-prefixed records. Little-endian throughout. Pure encode/decode of single parts; the streaming
// reader and the buffered writer build on these.
//
//   file    = magic "OPAMPREC" (8 bytes) · version u16 · headerLength u32 · header (UTF-8 JSON) · record*
//   record  = bodyLength u32 · body
//   body    = kind u8 · receivedAt f64 (Unix ms) · connectionId u32 · transport u8 · flags u8 ·
//             remoteAddrLength u16 · remoteAddr · tlsSubjectLength u16 · tlsSubject · payload
//
// A reader skips record kinds it does not know (the length prefix says how far), so new kinds can be
// added within a version; anything that changes the layout of existing parts takes a new version.

import type { Transport } from '../../events/agentData.ts';

export const recordingMagic = Buffer.from('OPAMPREC', 'latin1');
export const recordingVersion = 1;
/** magic + version + header length. */
export const preambleBytes = recordingMagic.length + 2 + 4;
/** kind + receivedAt + connectionId + transport + flags + two string lengths. */
export const fixedBodyBytes = 1 + 8 + 4 + 1 + 1 + 2 + 2;
/** A body longer than this is treated as corruption rather than allocated (64 MiB message + strings). */
export const maxBodyBytes = 64 * 1024 * 1024 + 2 * 65_536 + fixedBodyBytes;

export const recordKinds = { message: 1, connectionClosed: 2 } as const;
export type RecordKindName = keyof typeof recordKinds;

const transportCodes: Readonly<Record<Transport, number>> = { ws: 0, http: 1 };
const transportOf = (code: number): Transport | undefined =>
  code === 0 ? 'ws' : code === 1 ? 'http' : undefined;
const viaGatewayFlag = 0x01;

/** What the service knew when it wrote the recording; replay uses it to fold the same way. */
export interface RecordingHeader {
  /** Unix ms when recording began (the liveness sweeper starts then too). */
  readonly startedAt: number;
  readonly service?: { readonly version: string; readonly commit: string };
  readonly fleet?: {
    /** Milliseconds. */
    readonly heartbeat_interval: number;
    readonly stale_missed_heartbeats: number;
    readonly required_attributes: readonly string[];
  };
}

interface RecordBase {
  /** Unix ms of receipt, as the handler saw it (the `at` of every event it produced). */
  readonly receivedAt: number;
  readonly connectionId: number;
  readonly transport: Transport;
  readonly remoteAddr: string;
  readonly tlsSubject: string | null;
  readonly viaGateway: boolean;
}

/** One inbound AgentToServer, as raw protobuf bytes (the WebSocket header already removed). */
export interface MessageRecord extends RecordBase {
  readonly kind: 'message';
  readonly payload: Uint8Array;
}

/** A WebSocket closed: the service disconnected every agent still bound to it. */
export interface ConnectionClosedRecord extends RecordBase {
  readonly kind: 'connectionClosed';
}

export type RecordingRecord = MessageRecord | ConnectionClosedRecord;

export function encodePreamble(header: RecordingHeader, version = recordingVersion): Buffer {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const out = Buffer.allocUnsafe(preambleBytes + json.length);
  recordingMagic.copy(out, 0);
  out.writeUInt16LE(version, 8);
  out.writeUInt32LE(json.length, 10);
  json.copy(out, preambleBytes);
  return out;
}

/** Strings longer than a u16 length allows are cut (remote addresses and subjects never are). */
const cut = (text: string): Buffer => {
  const b = Buffer.from(text, 'utf8');
  return b.length > 0xffff ? b.subarray(0, 0xffff) : b;
};

/** One record with its length prefix. */
export function encodeRecord(record: RecordingRecord): Buffer {
  const addr = cut(record.remoteAddr);
  const subject = cut(record.tlsSubject ?? '');
  const payload = record.kind === 'message' ? record.payload : undefined;
  const bodyLength = fixedBodyBytes + addr.length + subject.length + (payload?.length ?? 0);
  const out = Buffer.allocUnsafe(4 + bodyLength);
  let o = out.writeUInt32LE(bodyLength, 0);
  o = out.writeUInt8(recordKinds[record.kind], o);
  o = out.writeDoubleLE(record.receivedAt, o);
  o = out.writeUInt32LE(record.connectionId >>> 0, o);
  o = out.writeUInt8(transportCodes[record.transport], o);
  o = out.writeUInt8(record.viaGateway ? viaGatewayFlag : 0, o);
  o = out.writeUInt16LE(addr.length, o);
  o += addr.copy(out, o);
  o = out.writeUInt16LE(subject.length, o);
  o += subject.copy(out, o);
  if (payload) out.set(payload, o);
  return out;
}

export type DecodedBody =
  | { readonly ok: true; readonly record: RecordingRecord }
  | { readonly ok: true; readonly record: undefined; readonly unknownKind: number }
  | { readonly ok: false; readonly reason: string };

/** Decodes one record body (without its length prefix). The payload is a view into `body`. */
export function decodeBody(body: Buffer): DecodedBody {
  const decoded = decodeBodyAt(body, 0, body.length);
  if (!(decoded instanceof BodyProblem)) return { ok: true, record: decoded };
  return decoded.reason === undefined
    ? { ok: true, record: undefined, unknownKind: decoded.unknownKind }
    : { ok: false, reason: decoded.reason };
}

/** A body that is no record: of a kind this reader does not know (skipped), or corrupt (`reason`). */
export class BodyProblem {
  readonly reason: string | undefined;
  readonly unknownKind: number;
  constructor(reason: string | undefined, unknownKind = 0) {
    this.reason = reason;
    this.unknownKind = unknownKind;
  }
}

/** Remote addresses by connection id (TextCache): the recording repeats one per record. */
export interface TextCache {
  readonly byId: Map<number, string>;
}

/** Whether `known` is the text of buf[start, end), all ASCII (so the bytes' UTF-8 decoding). */
function sameAscii(known: string | undefined, buf: Buffer, start: number, end: number): known is string {
  if (known === undefined || known.length !== end - start) return false;
  for (let i = start; i < end; i++) {
    const c = known.charCodeAt(i - start);
    // ASCII only: a byte ≥ 0x80 is not its own character in UTF-8.
    if (c !== buf[i] || c >= 0x80) return false;
  }
  return true;
}

/**
 * decodeBody of the body at buf[start, end), without a view of it or objects beyond the record and
 * its payload's view: a replay reads a million of these in seconds. `addrs` hands out the remote
 * address a connection's previous record had when the bytes are the same.
 */
export function decodeBodyAt(
  buf: Buffer,
  start: number,
  end: number,
  addrs?: TextCache,
): RecordingRecord | BodyProblem {
  const length = end - start;
  if (length < 1) return new BodyProblem('empty record');
  const kindCode = buf[start]!;
  if (kindCode !== recordKinds.message && kindCode !== recordKinds.connectionClosed)
    return new BodyProblem(undefined, kindCode);
  if (length < fixedBodyBytes)
    return new BodyProblem(`record of ${length} bytes is shorter than its fixed part`);
  const receivedAt = buf.readDoubleLE(start + 1);
  const connectionId = buf.readUInt32LE(start + 9);
  const transport = transportOf(buf[start + 13]!);
  if (transport === undefined) return new BodyProblem(`unknown transport code ${buf[start + 13]!}`);
  const viaGateway = (buf[start + 14]! & viaGatewayFlag) !== 0;
  let o = start + 15;
  const addrLength = buf.readUInt16LE(o);
  o += 2;
  if (o + addrLength + 2 > end) return new BodyProblem('remote address runs past the record');
  let remoteAddr = addrs?.byId.get(connectionId);
  if (!sameAscii(remoteAddr, buf, o, o + addrLength)) {
    remoteAddr = buf.toString('utf8', o, o + addrLength);
    if (addrs !== undefined) {
      // Plain-HTTP recordings have a connection id per request: the cache starts over now and then.
      if (addrs.byId.size >= 65_536) addrs.byId.clear();
      addrs.byId.set(connectionId, remoteAddr);
    }
  }
  o += addrLength;
  const subjectLength = buf.readUInt16LE(o);
  o += 2;
  if (o + subjectLength > end) return new BodyProblem('TLS subject runs past the record');
  const tlsSubject = subjectLength === 0 ? null : buf.toString('utf8', o, o + subjectLength);
  o += subjectLength;
  if (kindCode === recordKinds.connectionClosed) {
    addrs?.byId.delete(connectionId);
    return {
      kind: 'connectionClosed',
      receivedAt,
      connectionId,
      transport,
      remoteAddr,
      tlsSubject,
      viaGateway,
    };
  }
  return {
    kind: 'message',
    receivedAt,
    connectionId,
    transport,
    remoteAddr,
    tlsSubject,
    viaGateway,
    payload: buf.subarray(o, end),
  };
}
