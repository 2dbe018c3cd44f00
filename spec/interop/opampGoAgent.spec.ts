// An agent on opamp-go's client library (tools/peers/agent), over WebSocket and plain HTTP: it
// reports, applies a remote config by selector, and refuses one with its own error text, which the
// service shows and does not offer again.

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { opampEndpoint, type Transport } from './support/collectorPeers.ts';
import { startConfigDirService, type ConfigDirService } from './support/configDirService.ts';
import { agentWhen, type Json } from './support/fleetApi.ts';
import { startPeer, type PeerProcess } from './support/peerProcess.ts';
import { peerBinary } from './support/peers.ts';

const remoteOf = (a: Json) => a.remote_config as Json;

describe("opamp-go's client library as an agent (real peer)", function () {
  this.timeout(90_000);
  let service: ConfigDirService;
  let agent: PeerProcess | undefined;
  beforeEach(async () => {
    service = await startConfigDirService();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && agent) console.log(agent.output().slice(-6_000));
    await agent?.stop();
    agent = undefined;
    await service.stop();
  });
  const start = (ctx: Mocha.Context, transport: Transport, uid: string) => {
    const endpoint = opampEndpoint(service.app.urls.opamp, transport);
    const args = [
      '-endpoint',
      endpoint,
      '-instance-uid',
      uid,
      '-heartbeat',
      '1s',
      '-service-name',
      'go-agent',
    ];
    agent = startPeer(peerBinary(ctx, 'agent'), args, tmpdir());
  };

  for (const transport of ['ws', 'http'] as Transport[]) {
    it(`over ${transport}: reports, applies a config and shows a refused one as failed, offered once`, async function () {
      const { app } = service;
      const uid = randomUUID();
      start(this, transport, uid);
      const reported = await agentWhen(app, uid, (a) => a.health_reported === true, 'the agent to report');
      expect(reported.identifying_attributes).to.include({
        'service.name': 'go-agent',
        'service.instance.id': uid,
      });
      expect(reported.connection).to.include({ transport });

      await service.target('10-good', uid, 'good: 1\n');
      const applied = await agentWhen(
        app,
        uid,
        (a) => a.config_state === 'applied',
        'the config to be applied',
      );
      expect(applied.effective_config).to.deep.equal({ '10-good': 'good: 1\n' });

      await service.target('20-bad', uid, 'reject-me: true\n');
      const failed = await agentWhen(app, uid, (a) => a.config_state === 'failed', 'the config to fail');
      expect(remoteOf(failed).error_message).to.match(/"20-bad" refused: it asks to be rejected/);
      const seq = BigInt(String(failed.sequence_num));
      await agentWhen(app, uid, (a) => BigInt(String(a.sequence_num)) > seq + 2n, 'more heartbeats');
      expect(service.offersOf(uid, String(remoteOf(failed).desired_hash))).to.equal(1);
    });
  }
});
