// An agent on opamp-go's client library (tools/peers/agent), over WebSocket and plain HTTP: it
// reports, applies a remote config by selector, and refuses one with its own error text, which the
// service shows and does not offer again. Rollbacks never loop: with `-rollback-on` the agent
// behaves as the supervisor does after an automatic config rollback (APPLIED(A) → APPLYING(B) →
// FAILED(B) → APPLIED(A); opamp-spec#397), and the service shows `rolled_back` with the hash it went
// back to, offers B once (counted on both sides: the service's offers and the agent's own lines),
// and offers the next desired config when it changes. The rollout case, with PostgreSQL, is in
// agentRollbackRollout.spec.ts.

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Transport } from './support/collectorPeers.ts';
import { startConfigDirService, type ConfigDirService } from './support/configDirService.ts';
import { agentWhen, type Json } from './support/fleetApi.ts';
import { configLines, linesOf, rollbackArgs, startGoAgent } from './support/goAgent.ts';
import type { PeerProcess } from './support/peerProcess.ts';

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

  for (const transport of ['ws', 'http'] as Transport[]) {
    it(`over ${transport}: reports, applies a config and shows a refused one as failed, offered once`, async function () {
      const { app } = service;
      const uid = randomUUID();
      agent = startGoAgent(this, { opampUrl: app.urls.opamp, transport, uid });
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
      const refused = String(remoteOf(failed).desired_hash);
      expect(service.offersOf(uid, refused)).to.equal(1);
      expect(linesOf(agent, `config received ${refused}`), 'received once').to.equal(1);
    });

    it(`over ${transport}: a config it rolls back is rolled_back, offered once; the next one is offered`, async function () {
      const { app } = service;
      const uid = randomUUID();
      const peer = startGoAgent(this, { opampUrl: app.urls.opamp, transport, uid, args: rollbackArgs });
      agent = peer;
      await service.target('10-base', uid, 'base: 1\n');
      const first = await agentWhen(app, uid, (a) => a.config_state === 'applied', 'the base config applied');
      const good = String(remoteOf(first).reported_hash);

      await service.target('20-start', uid, 'fail-at-start: true\n');
      const rolledBack = await agentWhen(app, uid, (a) => a.config_state === 'rolled_back', 'the rollback');
      const bad = String(remoteOf(rolledBack).desired_hash);
      expect(bad).to.not.equal(good);
      expect(remoteOf(rolledBack)).to.include({
        reported_hash: good,
        status: 'applied',
        rolled_back_from: bad,
      });
      expect(rolledBack.effective_config).to.deep.equal({ '10-base': 'base: 1\n' });
      await peer.waitForLine(new RegExp(`^config rolled back to ${good} from ${bad}$`));
      expect(configLines(peer).slice(2)).to.deep.equal([
        `config received ${bad}`,
        `config applying ${bad}`,
        `config failed ${bad}`,
        `config rolled back to ${good} from ${bad}`,
      ]);
      // More check-ins after the rollback, each a chance for the service to offer B again.
      const seq = BigInt(String(rolledBack.sequence_num));
      await agentWhen(app, uid, (a) => BigInt(String(a.sequence_num)) > seq + 3n, 'more check-ins');
      expect(service.offersOf(uid, bad), 'offered by the service').to.equal(1);
      expect(linesOf(peer, `config received ${bad}`), 'received by the agent').to.equal(1);
      expect((await agentWhen(app, uid, () => true, 'the agent')).config_state).to.equal('rolled_back');

      await service.target('20-start', uid, 'fixed: true\n');
      const fixed = await agentWhen(
        app,
        uid,
        (a) => a.config_state === 'applied' && remoteOf(a).reported_hash !== good,
        'the changed config applied',
      );
      const next = String(remoteOf(fixed).reported_hash);
      expect(fixed.effective_config).to.deep.equal({ '10-base': 'base: 1\n', '20-start': 'fixed: true\n' });
      expect(remoteOf(fixed).rolled_back_from, 'kept: that hash is still not offered').to.equal(bad);
      expect(service.offersOf(uid, next)).to.equal(1);
      expect(linesOf(peer, `config applied ${next}`)).to.equal(1);
    });
  }
});
