import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  encodePreamble,
  encodeRecord,
  recordingMagic,
  type RecordingHeader,
  type RecordingRecord,
} from '../../../src/io/recorder/recordingFormat.ts';
import { openRecording, RecordingFormatError } from '../../../src/io/recorder/recordingReader.ts';

const header: RecordingHeader = {
  startedAt: 1_700_000_000_000,
  fleet: { heartbeat_interval: 30_000, stale_missed_heartbeats: 3, required_attributes: ['service.name'] },
};

const records: RecordingRecord[] = [
  {
    kind: 'message',
    receivedAt: 1_700_000_000_123,
    connectionId: 7,
    transport: 'ws',
    remoteAddr: '127.0.0.1:50000',
    tlsSubject: null,
    viaGateway: false,
    payload: Uint8Array.from([0x0a, 0x02, 0x01, 0x02]),
  },
  {
    kind: 'message',
    receivedAt: 1_700_000_000_124.5,
    connectionId: 8,
    transport: 'http',
    remoteAddr: '[::1]:4000',
    tlsSubject: 'CN=agent-é,O=Example',
    viaGateway: true,
    payload: new Uint8Array(),
  },
  {
    kind: 'connectionClosed',
    receivedAt: 1_700_000_001_000,
    connectionId: 7,
    transport: 'ws',
    remoteAddr: '127.0.0.1:50000',
    tlsSubject: null,
    viaGateway: false,
  },
];

/** A stream that hands out the bytes in small pieces, so records straddle chunk boundaries. */
const chunked = (bytes: Buffer, size = 5): Readable =>
  Readable.from(
    Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) =>
      bytes.subarray(i * size, (i + 1) * size),
    ),
  );

async function readAll(bytes: Buffer) {
  const reader = await openRecording(chunked(bytes));
  const out: RecordingRecord[] = [];
  for await (const batch of reader.batches()) out.push(...batch);
  return { reader, out };
}

const plain = (r: RecordingRecord) => (r.kind === 'message' ? { ...r, payload: [...r.payload] } : r);

describe('recording format', () => {
  const file = Buffer.concat([encodePreamble(header), ...records.map(encodeRecord)]);

  it('reads back the header and every record as written, across chunk boundaries', async () => {
    const { reader, out } = await readAll(file);
    expect(reader.version).to.equal(1);
    expect(reader.header).to.deep.equal(header);
    expect(out.map(plain)).to.deep.equal(records.map(plain));
    expect(reader.summary.truncated).to.equal(null);
    expect(reader.summary.records).to.equal(3);
  });

  it('reads a recording file from disk', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rec-'));
    try {
      await writeFile(join(dir, 'r.opamprec'), file);
      const reader = await openRecording(join(dir, 'r.opamprec'));
      let n = 0;
      for await (const batch of reader.batches()) n += batch.length;
      expect(n).to.equal(3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reports a file cut inside a record as truncated, after every complete record', async () => {
    const cut = file.subarray(0, file.length - 3);
    const { reader, out } = await readAll(cut);
    expect(out).to.have.length(2);
    const lastLength = encodeRecord(records[2]!).length;
    expect(reader.summary.truncated).to.deep.equal({
      offset: file.length - lastLength,
      needed: lastLength,
      available: lastLength - 3,
    });
  });

  it('reports a file cut inside a length prefix as truncated', async () => {
    const lastLength = encodeRecord(records[2]!).length;
    const { reader, out } = await readAll(file.subarray(0, file.length - lastLength + 2));
    expect(out).to.have.length(2);
    expect(reader.summary.truncated?.available).to.equal(2);
  });

  it('refuses an unknown version with a message naming both versions', async () => {
    const v2 = Buffer.concat([encodePreamble(header, 2), encodeRecord(records[0]!)]);
    try {
      await openRecording(chunked(v2));
      expect.fail('opened a version 2 recording');
    } catch (error) {
      expect(error).to.be.instanceOf(RecordingFormatError);
      expect((error as Error).message).to.match(/version 2; this reader supports version 1/);
    }
  });

  it('refuses a file without the magic', async () => {
    const bad = Buffer.from(file);
    bad.write('NOTAREC!', 0, 'latin1');
    try {
      await openRecording(chunked(bad));
      expect.fail('opened a file without the magic');
    } catch (error) {
      expect((error as Error).message).to.match(/does not start with "OPAMPREC"/);
    }
    expect(recordingMagic.toString('latin1')).to.equal('OPAMPREC');
  });

  it('skips records of unknown kinds and counts them', async () => {
    const unknown = encodeRecord(records[0]!);
    unknown.writeUInt8(99, 4); // the kind byte follows the length prefix
    const { reader, out } = await readAll(
      Buffer.concat([encodePreamble(header), unknown, encodeRecord(records[1]!)]),
    );
    expect(out).to.have.length(1);
    expect(reader.summary.unknownKinds.get(99)).to.equal(1);
  });
});
