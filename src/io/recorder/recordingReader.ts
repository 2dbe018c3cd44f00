// Streaming reader of recordings (docs/recording-format.md). Reads chunk by chunk, never the whole
// file, and hands out records in batches (one per chunk) so a replay of millions of records does not
// pay an await per record. A file that ends inside a record is reported as truncated after every
// complete record has been handed out; an unknown version or a wrong magic is an error at open.

import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  BodyProblem,
  decodeBodyAt,
  type TextCache,
  maxBodyBytes,
  preambleBytes,
  recordingMagic,
  recordingVersion,
  type RecordingHeader,
  type RecordingRecord,
} from './recordingFormat.ts';

export class RecordingFormatError extends Error {
  override readonly name = 'RecordingFormatError';
}

export interface Truncation {
  /** File offset where the incomplete record starts. */
  readonly offset: number;
  /** Bytes that record needs (length prefix included), and bytes the file still had. */
  readonly needed: number;
  readonly available: number;
}

export interface ReadSummary {
  records: number;
  /** Records of kinds this reader does not know, skipped (counted by kind code). */
  readonly unknownKinds: Map<number, number>;
  /** Set when the file ended inside a record. */
  truncated: Truncation | null;
}

export interface RecordingReader {
  readonly version: number;
  readonly header: RecordingHeader;
  /** Every complete record in file order, in batches. Call once. */
  batches(): AsyncGenerator<readonly RecordingRecord[]>;
  /** Complete after batches() has finished. */
  readonly summary: ReadSummary;
}

const chunkBytes = 1024 * 1024;

export async function openRecording(source: string | Readable): Promise<RecordingReader> {
  const stream =
    typeof source === 'string' ? createReadStream(source, { highWaterMark: chunkBytes }) : source;
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let buffer: Buffer = Buffer.alloc(0);
  let offset = 0; // file offset of buffer[0]

  async function fill(bytes: number): Promise<boolean> {
    while (buffer.length < bytes) {
      const next = await chunks.next();
      if (next.done === true) return false;
      buffer = buffer.length === 0 ? next.value : Buffer.concat([buffer, next.value]);
    }
    return true;
  }

  const name = typeof source === 'string' ? source : 'recording';
  if (!(await fill(preambleBytes))) {
    stream.destroy();
    throw new RecordingFormatError(
      `${name} is not a recording: ${buffer.length} bytes, shorter than the ${preambleBytes}-byte preamble`,
    );
  }
  if (!buffer.subarray(0, recordingMagic.length).equals(recordingMagic)) {
    stream.destroy();
    throw new RecordingFormatError(`${name} is not a recording: it does not start with "OPAMPREC"`);
  }
  const version = buffer.readUInt16LE(8);
  if (version !== recordingVersion) {
    stream.destroy();
    throw new RecordingFormatError(
      `${name} has recording format version ${version}; this reader supports version ${recordingVersion} only`,
    );
  }
  const headerLength = buffer.readUInt32LE(10);
  if (!(await fill(preambleBytes + headerLength))) {
    stream.destroy();
    throw new RecordingFormatError(`${name} is truncated inside its header`);
  }
  let header: RecordingHeader;
  try {
    header = JSON.parse(
      buffer.toString('utf8', preambleBytes, preambleBytes + headerLength),
    ) as RecordingHeader;
  } catch (error) {
    stream.destroy();
    throw new RecordingFormatError(`${name} has an unreadable header: ${(error as Error).message}`);
  }
  buffer = buffer.subarray(preambleBytes + headerLength);
  offset = preambleBytes + headerLength;

  const summary: ReadSummary = { records: 0, unknownKinds: new Map(), truncated: null };
  const addrs: TextCache = { byId: new Map() };

  /** Takes every complete record out of the buffer. */
  function drain(): RecordingRecord[] {
    const out: RecordingRecord[] = [];
    let o = 0;
    while (buffer.length - o >= 4) {
      const bodyLength = buffer.readUInt32LE(o);
      if (bodyLength > maxBodyBytes)
        throw new RecordingFormatError(
          `${name}: record at offset ${offset + o} claims ${bodyLength} bytes; the file is corrupt`,
        );
      if (buffer.length - o - 4 < bodyLength) break;
      const decoded = decodeBodyAt(buffer, o + 4, o + 4 + bodyLength, addrs);
      if (!(decoded instanceof BodyProblem)) out.push(decoded);
      else if (decoded.reason !== undefined)
        throw new RecordingFormatError(`${name}: record at offset ${offset + o}: ${decoded.reason}`);
      else {
        const code = decoded.unknownKind;
        summary.unknownKinds.set(code, (summary.unknownKinds.get(code) ?? 0) + 1);
      }
      o += 4 + bodyLength;
    }
    buffer = buffer.subarray(o);
    offset += o;
    summary.records += out.length;
    return out;
  }

  async function* batches(): AsyncGenerator<readonly RecordingRecord[]> {
    try {
      for (;;) {
        const batch = drain();
        if (batch.length > 0) yield batch;
        const next = await chunks.next();
        if (next.done === true) break;
        buffer = buffer.length === 0 ? next.value : Buffer.concat([buffer, next.value]);
      }
      if (buffer.length > 0) {
        const needed = buffer.length >= 4 ? 4 + buffer.readUInt32LE(0) : 4;
        summary.truncated = { offset, needed, available: buffer.length };
      }
    } finally {
      stream.destroy();
    }
  }

  return { version, header, batches, summary };
}

/** One line describing a truncation, for people. */
export function describeTruncation(t: Truncation): string {
  return `recording is truncated: the record at offset ${t.offset} needs ${t.needed} bytes but only ${t.available} remain (every record before it was read)`;
}
