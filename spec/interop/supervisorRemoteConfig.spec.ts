// A remote config by selector reaches a supervised Collector (the real OpAMP supervisor and
// Collector): the Collector restarts with it, reports APPLIED and its effective config shows the new
// pipeline; a config the Collector refuses ends `failed` with the Collector's own error text and is
// offered once. Configs come from a config directory (docs/remote-config.md), as in GitOps.

import { expect } from 'chai';
import { dump } from 'js-yaml';
import { freePort } from '../support/postgres.ts';
import { startSupervisor, type RunningPeer, type Transport } from './support/collectorPeers.ts';
import { startConfigDirService, type ConfigDirService } from './support/configDirService.ts';
import { agentWhen, type Json } from './support/fleetApi.ts';

const remoteOf = (a: Json) => a.remote_config as Json;
const effectiveText = (a: Json) => Object.values(a.effective_config as Record<string, string>).join('\n');

/** A metrics pipeline the base config lacks: OTLP/HTTP in, memory_limiter and batch, debug out. */
function metricsPipeline(port: number): string {
  return dump({
    receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${port}` } } } },
    processors: { memory_limiter: { check_interval: '1s', limit_mib: 256 }, batch: {} },
    exporters: { debug: {} },
    service: {
      pipelines: {
        metrics: { receivers: ['otlp'], processors: ['memory_limiter', 'batch'], exporters: ['debug'] },
      },
    },
  });
}

describe('a remote config by selector reaches a supervised Collector (real peers)', function () {
  this.timeout(180_000);
  let service: ConfigDirService;
  let peer: RunningPeer | undefined;
  beforeEach(async () => {
    service = await startConfigDirService();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && peer) console.log(peer.process.output().slice(-8_000));
    await peer?.stop();
    peer = undefined;
    await service.stop();
  });

  for (const transport of ['ws', 'http'] as Transport[]) {
    it(`over ${transport}: the Collector restarts with it, reports APPLIED and shows the new pipeline`, async function () {
      const { app } = service;
      peer = await startSupervisor(this, { transport, opampUrl: app.urls.opamp });
      const before = await agentWhen(app, peer.uid, (a) => a.healthy === true, 'the Collector to run');
      await service.target('20-metrics', peer.uid, metricsPipeline(await freePort()));
      const applied = await agentWhen(
        app,
        peer.uid,
        (a) => a.config_state === 'applied' && /batch/.test(effectiveText(a)),
        'the config to be applied',
        120_000,
      );
      expect(remoteOf(applied)).to.include({ config_state: 'applied', status: 'applied', error_message: '' });
      expect(remoteOf(applied).reported_hash).to.equal(remoteOf(applied).desired_hash);
      expect(effectiveText(applied))
        .to.match(/otlp/)
        .and.match(/memory_limiter/)
        .and.match(/debug/);
      const restarted = await agentWhen(
        app,
        peer.uid,
        (a) => a.healthy === true && String(a.health_start_time) > String(before.health_start_time),
        'the Collector to run again, restarted',
      );
      expect(restarted.health_start_time).to.not.equal(before.health_start_time);
      expect(service.offersOf(peer.uid, String(remoteOf(applied).desired_hash))).to.equal(1);
    });
  }

  for (const transport of ['ws', 'http'] as Transport[]) {
    it(`over ${transport}: a config the Collector refuses ends failed with its own error, offered once`, async function () {
      const { app } = service;
      peer = await startSupervisor(this, { transport, opampUrl: app.urls.opamp, validateConfig: true });
      await agentWhen(app, peer.uid, (a) => a.healthy === true, 'the Collector to run');
      // Component types it has (one it lacks would not be sent at all: supervisorIncompatible.spec.ts),
      // with a setting the debug exporter does not know.
      const refused = dump({
        exporters: { debug: { nosuchsetting: 1 } },
        service: { pipelines: { logs: { receivers: ['nop'], exporters: ['debug'] } } },
      });
      await service.target('30-refused', peer.uid, refused);
      const failed = await agentWhen(
        app,
        peer.uid,
        (a) => a.config_state === 'failed',
        'the config to fail',
        120_000,
      );
      const remote = remoteOf(failed);
      expect(remote).to.include({ status: 'failed' });
      expect(remote.error_message).to.include(`'debugexporter.Config' has invalid keys: nosuchsetting`);
      expect(remote.reported_hash).to.equal(remote.desired_hash);
      // The supervisor kept the Collector running on its previous config.
      const still = await agentWhen(
        app,
        peer.uid,
        (a) => a.healthy === true,
        'the Collector to keep running',
      );
      expect(effectiveText(still)).to.not.match(/nosuchsetting/);
      // The agent's next message (a heartbeat at the latest) is answered without the refused config.
      const seq = BigInt(String(still.sequence_num));
      await agentWhen(app, peer.uid, (a) => BigInt(String(a.sequence_num)) > seq, 'another message', 90_000);
      expect(service.offersOf(peer.uid, String(remote.desired_hash))).to.equal(1);
    });
  }
});
