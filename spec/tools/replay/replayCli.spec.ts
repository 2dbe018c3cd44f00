// The replay command end to end: what it prints on stdout is determined by the recording alone.

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { encodePreamble, encodeRecord } from '../../../src/io/recorder/recordingFormat.ts';
import { agentMessage, description } from '../../support/agentClient.ts';

const run = promisify(execFile);
const replay = fileURLToPath(new URL('../../../tools/replay.ts', import.meta.url));
const t0 = Date.UTC(2026, 0, 1);
const fleet = { heartbeat_interval: 1000, stale_missed_heartbeats: 3, required_attributes: ['team'] };

describe('npm run replay (offline)', function () {
  this.timeout(30_000);
  let dir: string;
  let file: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'replay-cli-'));
    file = join(dir, 'fleet.opamprec');
    const uids = Array.from(
      { length: 20 },
      (_, i) => `0190a0b0-0000-7000-8000-${String(i).padStart(12, '0')}`,
    );
    const records = uids.flatMap((uid, i) =>
      Array.from({ length: 5 }, (_, n) =>
        encodeRecord({
          kind: 'message',
          receivedAt: t0 + n * 700 + i,
          connectionId: i + 1,
          transport: 'ws',
          remoteAddr: '127.0.0.1:1',
          tlsSubject: null,
          viaGateway: false,
          payload: agentMessage(uid, {
            sequenceNum: n,
            ...(n === 0 ? { agentDescription: description({ 'service.name': `s${i}` }) } : {}),
            ...(n % 2 === 1 ? { health: { healthy: n === 1 } } : {}),
          }),
        }),
      ),
    );
    writeFileSync(file, Buffer.concat([encodePreamble({ startedAt: t0, fleet }), ...records]));
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prints byte-identical stdout for two replays of one recording, and its timing on stderr', async () => {
    const first = await run(process.execPath, [replay, file], { maxBuffer: 1 << 24 });
    const second = await run(process.execPath, [replay, file], { maxBuffer: 1 << 24 });
    expect(first.stdout).to.equal(second.stdout);
    const summary = (JSON.parse(first.stdout) as { summary: Record<string, unknown> }).summary;
    expect(summary.messages).to.equal(100);
    expect(summary).not.to.have.property('elapsed_ms');
    const timing = (JSON.parse(first.stderr.trim()) as { timing: Record<string, number> }).timing;
    expect(timing.elapsed_ms).to.be.a('number');
    expect(timing.messages_per_second).to.be.a('number');
  });
});
