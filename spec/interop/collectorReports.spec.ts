// The real OpenTelemetry Collector reporting to the service, over WebSocket and plain HTTP: under the
// OpAMP supervisor, and alone with its opamp extension. What it reports (description, health,
// effective config) shows in the JSON API's detail view and in its filters.

import { expect } from 'chai';
import type { App } from '../../src/app.ts';
import { startApp } from '../support/startApp.ts';
import {
  startCollectorWithExtension,
  startSupervisor,
  type RunningPeer,
  type Transport,
} from './support/collectorPeers.ts';
import { agentWhen, listedUids, type Json } from './support/fleetApi.ts';

const reported = (a: Json) =>
  a.description_reported === true &&
  a.health_reported === true &&
  a.healthy === true &&
  Object.keys(a.effective_config as Json).length > 0;

/** The Collector's effective config as one text (the supervisor reports one file, the extension too). */
const effectiveText = (a: Json) => Object.values(a.effective_config as Record<string, string>).join('\n');

describe('the OpenTelemetry Collector reports to the service (real peers)', function () {
  this.timeout(120_000);
  let app: App;
  let peer: RunningPeer | undefined;
  beforeEach(async () => {
    app = await startApp();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && peer) console.log(peer.process.output().slice(-8_000));
    await peer?.stop();
    peer = undefined;
    await app.stop();
  });

  for (const transport of ['ws', 'http'] as Transport[]) {
    it(`a supervised Collector over ${transport} shows its description, health and effective config`, async function () {
      peer = await startSupervisor(this, { transport, opampUrl: app.urls.opamp });
      const agent = await agentWhen(app, peer.uid, reported, 'the supervised Collector to report');
      expect(agent.connection).to.include({ transport });
      expect(agent.identifying_attributes).to.include({ 'service.instance.id': peer.uid });
      expect(agent.non_identifying_attributes).to.include({
        'deployment.environment': 'interop',
        'peer.kind': 'supervisor',
      });
      expect(agent.capability_flags).to.include({
        accepts_remote_config: true,
        reports_remote_config: true,
        reports_effective_config: true,
        reports_health: true,
        accepts_restart_command: true,
      });
      expect(effectiveText(agent)).to.match(/nop/);
      expect(agent.health_start_time).to.be.a('string');
      expect(await listedUids(app, 'match=deployment.environment=interop')).to.deep.equal([peer.uid]);
      expect(await listedUids(app, 'match=peer.kind=~"super.*"&healthy=true')).to.deep.equal([peer.uid]);
      expect(await listedUids(app, 'match=peer.kind=extension')).to.deep.equal([]);
    });

    it(`a Collector's own opamp extension over ${transport} shows the same, and accepts no remote config`, async function () {
      peer = await startCollectorWithExtension(this, { transport, opampUrl: app.urls.opamp });
      const agent = await agentWhen(app, peer.uid, reported, "the Collector's extension to report");
      expect(agent.connection).to.include({ transport });
      expect(agent.identifying_attributes).to.include({ 'service.instance.id': peer.uid });
      expect(agent.capability_flags).to.include({
        accepts_remote_config: false,
        reports_effective_config: true,
        reports_health: true,
      });
      expect(effectiveText(agent)).to.match(/opamp/);
      expect(await listedUids(app, `match=service.instance.id=${peer.uid}&healthy=true`)).to.deep.equal([
        peer.uid,
      ]);
    });
  }
});
