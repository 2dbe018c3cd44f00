// A config naming a component type the supervised Collector lacks is never sent (issue 24, with the
// real OpAMP supervisor and Collector): the Collector reports its available components, the config
// ends `incompatible` with the missing type listed and is offered not once, through later messages;
// a changed body the Collector can run is offered and applied as usual.

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { dump } from 'js-yaml';
import { startSupervisor, type RunningPeer, type Transport } from './support/collectorPeers.ts';
import { startConfigDirService, type ConfigDirService } from './support/configDirService.ts';
import { agentWhen, listedUids, type Json } from './support/fleetApi.ts';

const remoteOf = (a: Json) => a.remote_config as Json;
const exportersOf = (a: Json) =>
  ((a.available_components as Json | null)?.components as Record<string, string[]> | undefined)?.exporters;

/** Logs from the nop receiver to `exporter` (the built Collector has `debug` and `nop`, not `otlphttp`). */
const logsTo = (exporter: string, settings: Json = {}) =>
  dump({
    exporters: { [exporter]: settings },
    service: { pipelines: { 'logs/fleet': { receivers: ['nop'], exporters: [exporter] } } },
  });

/** Waits until the agent sent two messages after `seen` (a heartbeat at the latest), each answered. */
async function twoMoreMessages(service: ConfigDirService, uid: string, seen: Json): Promise<void> {
  const seq = BigInt(String(seen.sequence_num));
  const more = (a: Json) => BigInt(String(a.sequence_num)) > seq + 1n;
  await agentWhen(service.app, uid, more, 'two more messages', 120_000);
}

describe('a config naming a component type the supervised Collector lacks (real peers)', function () {
  this.timeout(240_000);
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
    it(`over ${transport}: a Collector that connects to find such a config waiting is never offered it`, async function () {
      const { app } = service;
      const uid = randomUUID();
      await service.target('40-fleet', uid, logsTo('otlphttp/eu', { endpoint: 'http://127.0.0.1:1' }));
      peer = await startSupervisor(this, { transport, opampUrl: app.urls.opamp, uid });
      const incompatible = await agentWhen(
        app,
        uid,
        (a) => remoteOf(a).config_state === 'incompatible' && a.healthy === true,
        'the Collector to run, its config judged incompatible',
        120_000,
      );
      expect(remoteOf(incompatible).missing_components).to.deep.equal({ exporters: ['otlphttp'] });
      await twoMoreMessages(service, uid, incompatible);
      expect(service.offersOf(uid, String(remoteOf(incompatible).desired_hash))).to.equal(0);
    });

    it(`over ${transport}: ends incompatible and is never offered, then a body it can run is applied`, async function () {
      const { app } = service;
      peer = await startSupervisor(this, { transport, opampUrl: app.urls.opamp });
      const uid = peer.uid;
      const ready = await agentWhen(
        app,
        uid,
        (a) => a.healthy === true && (exportersOf(a)?.length ?? 0) > 0,
        'the Collector to run and report its available components',
      );
      expect(exportersOf(ready)).to.include('debug').and.not.include('otlphttp');

      await service.target('40-fleet', uid, logsTo('otlphttp/eu', { endpoint: 'http://127.0.0.1:1' }));
      const incompatible = await agentWhen(
        app,
        uid,
        (a) => remoteOf(a).config_state === 'incompatible',
        'the config to be judged incompatible',
      );
      const hash = String(remoteOf(incompatible).desired_hash);
      expect(remoteOf(incompatible).missing_components).to.deep.equal({ exporters: ['otlphttp'] });
      expect(await listedUids(app, 'config_state=incompatible')).to.deep.equal([uid]);
      // Later messages of the agent (a heartbeat at the latest) are answered without it.
      await twoMoreMessages(service, uid, incompatible);
      expect(service.offersOf(uid, hash), 'offers of the incompatible config').to.equal(0);
      const still = await agentWhen(app, uid, (a) => a.healthy === true, 'the Collector to keep running');
      expect(remoteOf(still).config_state).to.equal('incompatible');

      await service.target('40-fleet', uid, logsTo('debug'));
      const applied = await agentWhen(
        app,
        uid,
        (a) => remoteOf(a).config_state === 'applied',
        'the changed config to be applied',
        120_000,
      );
      expect(remoteOf(applied).missing_components).to.deep.equal({});
      expect(service.offersOf(uid, String(remoteOf(applied).desired_hash))).to.equal(1);
      expect(service.offersOf(uid, hash)).to.equal(0);
    });
  }
});
