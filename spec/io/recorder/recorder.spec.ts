import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createConnection, createConnectionIds } from '../../../src/io/opamp/connection.ts';
import { createRecorder } from '../../../src/io/recorder/recorder.ts';
import { openRecording } from '../../../src/io/recorder/recordingReader.ts';
import type { RecordingRecord } from '../../../src/io/recorder/recordingFormat.ts';
import { silentLogger } from '../../../src/io/logger.ts';

const nextId = createConnectionIds();

async function readBack(file: string) {
  const reader = await openRecording(file);
  const out: RecordingRecord[] = [];
  for await (const batch of reader.batches()) out.push(...batch);
  return { reader, out };
}

function capturingLogger() {
  const lines: { msg: string; dropped?: number; droppedTotal?: number }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

describe('recorder', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'recorder-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes every message and connection close in handling order, with what the connection knew', async () => {
    const file = join(dir, 'a.opamprec');
    const recorder = await createRecorder({ file, header: { startedAt: 1000 }, logger: silentLogger() });
    const ws = createConnection('ws', '127.0.0.2:4000', null, nextId());
    const http = createConnection('http', '127.0.0.3:5000', 'CN=x', nextId());
    recorder.message(ws, Uint8Array.from([1, 2, 3]), 1001);
    ws.isGateway = true;
    recorder.message(ws, Uint8Array.from([4]), 1002);
    recorder.message(http, new Uint8Array(), 1003);
    recorder.connectionClosed(ws, 1004);
    await recorder.close();
    expect(recorder.stats()).to.include({ recorded: 4, dropped: 0, failed: false });

    const { reader, out } = await readBack(file);
    expect(reader.header.startedAt).to.equal(1000);
    expect(
      out.map((r) => [
        r.kind,
        r.receivedAt,
        r.connectionId,
        r.transport,
        r.viaGateway,
        r.remoteAddr,
        r.tlsSubject,
      ]),
    ).to.deep.equal([
      ['message', 1001, ws.id, 'ws', false, '127.0.0.2:4000', null],
      ['message', 1002, ws.id, 'ws', true, '127.0.0.2:4000', null],
      ['message', 1003, http.id, 'http', false, '127.0.0.3:5000', 'CN=x'],
      ['connectionClosed', 1004, ws.id, 'ws', true, '127.0.0.2:4000', null],
    ]);
    expect(out.map((r) => (r.kind === 'message' ? [...r.payload] : []))).to.deep.equal([
      [1, 2, 3],
      [4],
      [],
      [],
    ]);
  });

  it('copies the payload at once, so a transport reusing its buffer cannot change the recording', async () => {
    const file = join(dir, 'b.opamprec');
    const recorder = await createRecorder({ file, header: { startedAt: 0 }, logger: silentLogger() });
    const payload = Uint8Array.from([9, 9]);
    recorder.message(createConnection('ws', 'a', null, nextId()), payload, 1);
    payload.fill(0);
    await recorder.close();
    const { out } = await readBack(file);
    expect(out[0]?.kind === 'message' && [...out[0].payload]).to.deep.equal([9, 9]);
  });

  it('drops, counts and logs records when its bounded queue is full, without blocking the caller', async () => {
    const file = join(dir, 'c.opamprec');
    const { logger, lines } = capturingLogger();
    // Room for the preamble and a few records only; nothing is written before the caller yields.
    const recorder = await createRecorder({
      file,
      header: { startedAt: 0 },
      logger,
      maxQueuedBytes: 400,
      dropLogIntervalMs: 60_000,
    });
    const c = createConnection('ws', '127.0.0.1:1', null, nextId());
    for (let i = 0; i < 50; i++) recorder.message(c, new Uint8Array(40), i);
    const { recorded, dropped } = recorder.stats();
    expect(recorded + dropped).to.equal(50);
    expect(dropped).to.be.greaterThan(0);
    await recorder.close();
    const { out } = await readBack(file);
    expect(out).to.have.length(recorded);
    const dropLines = lines.filter((l) => l.msg === 'recorder dropped records');
    expect(dropLines).to.have.length(1); // one line per interval, not one per drop
    expect(lines.find((l) => l.msg === 'recorder dropped records in total')?.dropped).to.equal(dropped);
  });

  it('counts records that arrive after close as dropped', async () => {
    const recorder = await createRecorder({
      file: join(dir, 'd.opamprec'),
      header: { startedAt: 0 },
      logger: silentLogger(),
    });
    await recorder.close();
    recorder.message(createConnection('ws', 'a', null, nextId()), new Uint8Array(1), 1);
    expect(recorder.stats()).to.include({ recorded: 0, dropped: 1 });
  });
});
