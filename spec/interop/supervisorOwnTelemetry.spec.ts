// Own telemetry offered to a supervised Collector (the real OpAMP supervisor and Collector;
// docs/own-telemetry.md): the supervisor declares ReportsOwnMetrics, receives the own_metrics offer,
// restarts the Collector with it, and the Collector's own metrics arrive at an OTLP/HTTP receiver the
// spec runs, labelled with the agent's service.instance.id. The offer is sent once.

import { expect } from 'chai';
import type { App } from '../../src/app.ts';
import type { FleetEvent } from '../../src/events/fleetEvent.ts';
import { freePort } from '../support/postgres.ts';
import { startApp } from '../support/startApp.ts';
import { startSupervisor, type RunningPeer, type Transport } from './support/collectorPeers.ts';
import { agentWhen } from './support/fleetApi.ts';
import { startOtlpReceiver, type OtlpReceiver } from './support/otlpReceiver.ts';

describe('own metrics offered to a supervised Collector (real peers)', function () {
  this.timeout(180_000);
  let app: App;
  let receiver: OtlpReceiver;
  let peer: RunningPeer | undefined;
  let offers: string[];
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
    app = await startApp({
      config: {
        own_telemetry: [{ selector: 'peer.kind=supervisor', metrics: { endpoint: receiver.metricsUrl } }],
      },
    });
    offers = [];
    app.bus.events$.subscribe((e: FleetEvent) => {
      if (e.type === 'AgentOwnTelemetryOffered') offers.push(e.data.uid);
    });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && peer) console.log(peer.process.output().slice(-8_000));
    await peer?.stop();
    peer = undefined;
    await app.stop();
    await receiver.stop();
  });

  for (const transport of ['ws', 'http'] as Transport[]) {
    it(`over ${transport}: the Collector's own metrics arrive with its service.instance.id, offered once`, async function () {
      peer = await startSupervisor(this, {
        transport,
        opampUrl: app.urls.opamp,
        ownMetricsPort: await freePort(),
      });
      const uid = peer.uid;
      const resource = await receiver.waitFor((r) => r['service.instance.id'] === uid);
      expect(resource['service.instance.id']).to.equal(uid);
      const seen = await agentWhen(app, uid, (a) => a.healthy === true, 'the Collector to run');
      const settings = seen.connection_settings as { offered_hash: string | null };
      expect(settings.offered_hash).to.match(/^[0-9a-f]{64}$/);
      // The agent's next message (a heartbeat at the latest) is answered without a second offer.
      const seq = BigInt(String(seen.sequence_num));
      await agentWhen(app, uid, (a) => BigInt(String(a.sequence_num)) > seq, 'another message', 90_000);
      expect(offers.filter((o) => o === uid)).to.have.length(1);
    });
  }
});
