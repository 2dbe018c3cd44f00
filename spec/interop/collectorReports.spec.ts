// The real OpenTelemetry Collector reporting to the service, over WebSocket and plain HTTP: under the
// OpAMP supervisor, and alone with its opamp extension. What it reports (description, health,
// effective config, available components) shows in the JSON API's detail view, in its filters and,
// for the components, on the agent page. Both peers send only the hash of their components until
// the service asks (ReportAvailableComponents); the list must then be the Collector's own, as built
// from tools/peers/manifest.yaml.in.

import { expect } from 'chai';
import type { Subscription } from 'rxjs';
import type { App } from '../../src/app.ts';
import type { FleetEvent } from '../../src/events/fleetEvent.ts';
import { startApp } from '../support/startApp.ts';
import {
  startCollectorWithExtension,
  startSupervisor,
  type RunningPeer,
  type Transport,
} from './support/collectorPeers.ts';
import {
  builtComponents,
  builtComponentsHash,
  modulesMissingFromManifest,
} from './support/builtComponents.ts';
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
  /** Per agent, what each of its available-components reports held: its hash alone, or the list. */
  let componentReports: Map<string, ('hash' | 'list')[]>;
  let sub: Subscription;
  beforeEach(async () => {
    app = await startApp();
    componentReports = new Map();
    sub = app.bus.events$.subscribe((e: FleetEvent) => {
      if (e.type !== 'AgentAvailableComponentsReported') return;
      const held = Object.keys(e.data.components.components).length > 0 ? 'list' : 'hash';
      componentReports.set(e.data.uid, [...(componentReports.get(e.data.uid) ?? []), held]);
    });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && peer) console.log(peer.process.output().slice(-8_000));
    await peer?.stop();
    peer = undefined;
    sub.unsubscribe();
    await app.stop();
  });

  /** The whole list shows in the detail view and on the agent page (after the service asked). */
  const showsComponents = async (uid: string) => {
    const listed = (a: Json) =>
      Object.keys((a.available_components as Json | null)?.components ?? {}).length > 0;
    const agent = await agentWhen(app, uid, listed, 'the list of available components');
    const { hash, components } = agent.available_components as { hash: string; components: Json };
    const reports = componentReports.get(uid) ?? [];
    expect(reports[0], 'the first report: the hash alone').to.equal('hash');
    expect(reports, 'then the list, once asked').to.include('list');
    expect(modulesMissingFromManifest()).to.deep.equal([]);
    expect(components).to.deep.equal(builtComponents);
    expect(hash, "the extension's hash of what the Collector was built with").to.equal(builtComponentsHash());
    const page = await (await fetch(`${app.urls.ui}/agents/${uid}`)).text();
    const panel = page.slice(page.indexOf('id="available-components"'), page.indexOf('<h2>Packages</h2>'));
    for (const [kind, types] of Object.entries(builtComponents)) {
      expect(panel).to.include(`<dt>${kind}</dt>`);
      for (const type of types) expect(panel).to.include(`<span class="chip">${type}</span>`);
    }
  };

  for (const transport of ['ws', 'http'] as Transport[]) {
    it(`a supervised Collector over ${transport} shows its description, health, effective config and components`, async function () {
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
        reports_available_components: true,
        reports_own_metrics: true,
      });
      expect(effectiveText(agent)).to.match(/nop/);
      expect(agent.health_start_time).to.be.a('string');
      expect(await listedUids(app, 'match=deployment.environment=interop')).to.deep.equal([peer.uid]);
      expect(await listedUids(app, 'match=peer.kind=~"super.*"&healthy=true')).to.deep.equal([peer.uid]);
      expect(await listedUids(app, 'match=peer.kind=extension')).to.deep.equal([]);
      await showsComponents(peer.uid);
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
        reports_available_components: true,
      });
      expect(effectiveText(agent)).to.match(/opamp/);
      expect(await listedUids(app, `match=service.instance.id=${peer.uid}&healthy=true`)).to.deep.equal([
        peer.uid,
      ]);
      await showsComponents(peer.uid);
    });
  }
});
