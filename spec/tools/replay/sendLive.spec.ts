import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from '../../../src/app.ts';
import { openRecording } from '../../../src/io/recorder/recordingReader.ts';
import { sendLive } from '../../../tools/replay/sendLive.ts';
import { createFleet } from '../../../tools/simulate/fleet.ts';
import { startApp } from '../../support/startApp.ts';

/** What an agent reported, without the connection facts that differ between two servers. */
const reported = (app: App) =>
  [...app.registry.ordered()].map((a) => ({
    uid: a.uid,
    sequenceNum: a.sequenceNum,
    description: a.description,
    healthy: a.health?.healthy,
    config: a.effectiveConfig,
    transport: a.session.transport,
  }));

describe('sending a recording to a live server', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'send-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('delivers every recorded message over its transport, so the second server learns what the first did', async () => {
    const file = join(dir, 'fleet.opamprec');
    const source = await startApp({ config: { debug: { record_file: file } } });
    let expected: ReturnType<typeof reported>;
    try {
      const fleet = createFleet({
        url: source.urls.opamp,
        agents: 8,
        transport: 'mix',
        gateways: 0,
        heartbeatMs: 100,
        flapRate: 0.3,
        configBytes: 300,
        attributes: 6,
        churnPerSecond: 0,
        rampPerSecond: 0,
        localAddresses: [],
      });
      await fleet.start();
      while (fleet.snapshot().replies < 40) await new Promise((r) => setTimeout(r, 20));
      await fleet.stop();
      expected = reported(source);
    } finally {
      await source.stop();
    }

    const target = await startApp();
    try {
      const result = await sendLive(await openRecording(file), {
        url: target.urls.opamp,
        speed: Infinity,
        transport: 'recorded',
      });
      expect(result.errors).to.equal(0);
      expect(result.answered).to.equal(result.sent);
      expect(reported(target)).to.deep.equal(expected);
    } finally {
      await target.stop();
    }
  });
});
