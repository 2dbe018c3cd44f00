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
  if (body.length < 1) return { ok: false, reason: 'empty record' };
  const kindCode = body.readUInt8(0);
  const kind =
    kindCode === recordKinds.message
      ? 'message'
      : kindCode === recordKinds.connectionClosed
        ? 'connectionClosed'
        : undefined;
  if (kind === undefined) return { ok: true, record: undefined, unknownKind: kindCode };
  if (body.length < fixedBodyBytes)
    return { ok: false, reason: `record of ${body.length} bytes is shorter than its fixed part` };
  const receivedAt = body.readDoubleLE(1);
  const connectionId = body.readUInt32LE(9);
  const transport = transportOf(body.readUInt8(13));
  if (transport === undefined) return { ok: false, reason: `unknown transport code ${body.readUInt8(13)}` };
  const viaGateway = (body.readUInt8(14) & viaGatewayFlag) !== 0;
  let o = 15;
  const addrLength = body.readUInt16LE(o);
  o += 2;
  if (o + addrLength + 2 > body.length) return { ok: false, reason: 'remote address runs past the record' };
  const remoteAddr = body.toString('utf8', o, o + addrLength);
  o += addrLength;
  const subjectLength = body.readUInt16LE(o);
  o += 2;
  if (o + subjectLength > body.length) return { ok: false, reason: 'TLS subject runs past the record' };
  const tlsSubject = subjectLength === 0 ? null : body.toString('utf8', o, o + subjectLength);
  o += subjectLength;
  const base = { receivedAt, connectionId, transport, remoteAddr, tlsSubject, viaGateway };
  if (kind === 'connectionClosed') return { ok: true, record: { kind, ...base } };
  return { ok: true, record: { kind, ...base, payload: body.subarray(o) } };
}
