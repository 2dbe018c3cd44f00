// The traffic recorder (issue "record and replay"; docs/recording-format.md). The OpAMP handler calls
// it synchronously for every inbound message and every closed WebSocket; it encodes the record into a
// bounded in-memory queue and returns. A background loop writes the queue to the file in large writes.
// Contract: record*() never blocks, never throws and never waits for the disk. When the queue is full
// (the disk is slower than the traffic) the record is dropped, counted, and logged (first drop at once,
// then at most one summary line per logInterval); close() logs the total.

import { open, type FileHandle } from 'node:fs/promises';
import type { Logger } from '../logger.ts';
import type { OpampConnection } from '../opamp/connection.ts';
import {
  encodePreamble,
  encodeRecord,
  type RecordingHeader,
  type RecordingRecord,
} from './recordingFormat.ts';
import { nextTurn } from '../nextTurn.ts';

export interface RecorderStats {
  readonly recorded: number;
  readonly dropped: number;
  readonly bytesWritten: number;
  /** Bytes queued or being written now. */
  readonly queuedBytes: number;
  /** Set after a write failed; nothing more is written (and every later record counts as dropped). */
  readonly failed: boolean;
}

export interface Recorder {
  message(connection: OpampConnection, payload: Uint8Array, at: number): void;
  connectionClosed(connection: OpampConnection, at: number): void;
  stats(): RecorderStats;
  /** Writes what is queued, then closes the file. Records arriving afterwards are dropped. */
  close(): Promise<void>;
}

export interface RecorderOptions {
  readonly file: string;
  readonly header: RecordingHeader;
  readonly logger: Logger;
  /** Queue bound; default 16 MiB. */
  readonly maxQueuedBytes?: number;
  /** Minimum time between two drop log lines; default 10 s. */
  readonly dropLogIntervalMs?: number;
}

const defaultMaxQueuedBytes = 16 * 1024 * 1024;

/** Creates (or replaces) the file and writes the preamble; then records are accepted. */
export async function createRecorder(options: RecorderOptions): Promise<Recorder> {
  const { logger } = options;
  const maxQueued = options.maxQueuedBytes ?? defaultMaxQueuedBytes;
  const logInterval = options.dropLogIntervalMs ?? 10_000;
  const file: FileHandle = await open(options.file, 'w');
  let queue: Buffer[] = [encodePreamble(options.header)];
  let queuedBytes = queue[0]!.length;
  let recorded = 0;
  let dropped = 0;
  let droppedSinceLog = 0;
  let lastDropLog = -Infinity;
  let bytesWritten = 0;
  let failed = false;
  let closed = false;
  let writing: Promise<void> | undefined;

  function drop(reason: string): void {
    dropped++;
    droppedSinceLog++;
    const now = Date.now();
    if (now - lastDropLog >= logInterval) {
      logger.warn(
        { dropped: droppedSinceLog, droppedTotal: dropped, reason, file: options.file },
        'recorder dropped records',
      );
      lastDropLog = now;
      droppedSinceLog = 0;
    }
  }

  async function writeLoop(): Promise<void> {
    while (queue.length > 0 && !failed) {
      const batch = queue.length === 1 ? queue[0]! : Buffer.concat(queue);
      queue = [];
      try {
        let done = 0;
        while (done < batch.length) done += (await file.write(batch, done, batch.length - done)).bytesWritten;
        bytesWritten += batch.length;
      } catch (error) {
        failed = true;
        logger.error({ err: error, file: options.file }, 'recorder could not write; recording stopped');
      }
      queuedBytes -= batch.length;
    }
    writing = undefined;
  }

  function enqueue(record: RecordingRecord): void {
    if (closed) return drop('recorder closed');
    if (failed) return drop('write failed earlier');
    let bytes: Buffer;
    try {
      bytes = encodeRecord(record);
    } catch (error) {
      logger.error({ err: error }, 'recorder could not encode a record');
      return drop('encode failed');
    }
    if (queuedBytes + bytes.length > maxQueued) return drop('queue full');
    queue.push(bytes);
    queuedBytes += bytes.length;
    recorded++;
    writing ??= nextTurn().then(writeLoop);
  }

  const base = (c: OpampConnection, at: number) => ({
    receivedAt: at,
    connectionId: c.id,
    transport: c.transport,
    remoteAddr: c.remoteAddr,
    tlsSubject: c.tlsSubject,
    viaGateway: c.isGateway,
  });

  writing = writeLoop();

  return {
    message: (connection, payload, at) => enqueue({ kind: 'message', ...base(connection, at), payload }),
    connectionClosed: (connection, at) => enqueue({ kind: 'connectionClosed', ...base(connection, at) }),
    stats: () => ({ recorded, dropped, bytesWritten, queuedBytes, failed }),
    async close() {
      if (closed) return;
      closed = true;
      while (writing) await writing;
      await file.close();
      if (dropped > 0)
        logger.warn({ dropped, recorded, file: options.file }, 'recorder dropped records in total');
      logger.info({ recorded, bytesWritten, file: options.file }, 'recording closed');
    },
  };
}
