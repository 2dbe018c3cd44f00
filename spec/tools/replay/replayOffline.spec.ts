import { expect } from 'chai';
import { Readable } from 'node:stream';
import {
  encodePreamble,
  encodeRecord,
  type RecordingRecord,
} from '../../../src/io/recorder/recordingFormat.ts';
import { openRecording } from '../../../src/io/recorder/recordingReader.ts';
import { replayOffline } from '../../../tools/replay/replayOffline.ts';
import { agentMessage, description } from '../../support/agentClient.ts';

const t0 = Date.UTC(2026, 0, 1);
const uid = '0190a0b0-0000-7000-8000-000000000001';
const other = '0190a0b0-0000-7000-8000-000000000002';
const fleet = { heartbeat_interval: 1000, stale_missed_heartbeats: 3, required_attributes: [] };

const message = (
  at: number,
  connectionId: number,
  payload: Uint8Array,
  transport: 'ws' | 'http' = 'ws',
): RecordingRecord => ({
  kind: 'message',
  receivedAt: t0 + at,
  connectionId,
  transport,
  remoteAddr: '127.0.0.1:1',
  tlsSubject: null,
  viaGateway: false,
  payload,
});

function recording(records: RecordingRecord[]) {
  const bytes = Buffer.concat([encodePreamble({ startedAt: t0, fleet }), ...records.map(encodeRecord)]);
  return openRecording(Readable.from([bytes]));
}

describe('offline replay in virtual time', () => {
  const records = [
    // `uid` polls over plain HTTP: its silence is what the sweep judges (a WebSocket's liveness is its
    // socket's, and a recording shows the socket's close).
    message(0, 1, agentMessage(uid, { agentDescription: description({ 'service.name': 'a' }) }), 'http'),
    message(100, 2, agentMessage(other, { agentDescription: description({ 'service.name': 'b' }) })),
    // `other` keeps reporting; `uid` goes silent after its first message.
    ...Array.from({ length: 8 }, (_, i) =>
      message(1000 * (i + 1), 2, agentMessage(other, { sequenceNum: i + 1 })),
    ),
  ];

  it('disconnects and evicts a silent agent when the sweep would have, between records', async () => {
    const result = await replayOffline(await recording(records));
    expect(result.registry.get(uid as never)).to.equal(undefined);
    const entries = result.timelines.get(uid as never)?.entries ?? [];
    const disconnected = entries.find((e) => e.event === 'disconnected');
    const evicted = entries.find((e) => e.event === 'evicted');
    // Thresholds: disconnect after more than 1.5 s of silence, evict after more than 3 s; the sweep
    // runs every 150 ms from the recording start, so the first sweeps past them are at 1650 and 3150.
    expect(disconnected).to.deep.include({
      reason: 'heartbeat_missed',
      at: new Date(t0 + 1650).toISOString(),
    });
    expect(evicted?.at).to.equal(new Date(t0 + 3150).toISOString());
    expect(result.registry.get(other as never)?.connected).to.equal(true);
  });

  it('stops at --until and runs the clock up to it', async () => {
    const result = await replayOffline(await recording(records), { until: t0 + 2000 });
    expect(result.messages).to.equal(4); // at 0, 100, 1000 and 2000 ms
    expect(result.endedAt).to.equal(t0 + 2000);
    expect(result.registry.get(uid as never)?.connected).to.equal(false);
  });

  it('collects timelines only for the agents asked for', async () => {
    const result = await replayOffline(await recording(records), { only: new Set([other]) });
    expect([...result.timelines.keys()]).to.deep.equal([other]);
    expect(result.timelines.get(other as never)?.checkIns).to.equal(9);
  });
});
