// Remote configs delivered to real clients over real sockets: the project's simulator agents (which
// answer APPLYING, then APPLIED or FAILED) over WebSocket and HTTP, and Elastic's OpAMP client.
// Configs come from a directory here; the database source is specced with replicas elsewhere.

import { expect } from 'chai';
import { createOpAMPClient, RemoteConfigStatuses } from '@elastic/opamp-client-node';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from '../../../src/app.ts';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { toInstanceUid } from '../../../src/io/opamp/instanceUid.ts';
import { uuidv7Bytes } from '../../../src/io/opamp/uuidv7.ts';
import { configStateOf } from '../../../src/projections/remoteConfig/configState.ts';
import { createFleet, type Fleet } from '../../../tools/simulate/fleet.ts';
import { eventually } from '../../persistence/eventually.ts';
import { startApp } from '../../support/startApp.ts';
import { steadyFleet } from '../../support/steadyFleet.ts';

const fleetOptions = steadyFleet({ agents: 8, configBytes: 256 });

const configFile = (body: string, selector = 'service.version=~"1[.].*"') =>
  `selector: '${selector}'\nbody: |\n  ${body}\n`;

/** Every agent runs one config hash, not `before`, and has applied it. */
function changedOnEveryAgent(fleet: Fleet, before: string | undefined): boolean {
  const hashes = Object.keys(fleet.snapshot().configs.byHash);
  return hashes.length === 1 && hashes[0] !== before && fleet.snapshot().configs.applied === 8;
}

describe('remote config delivery to real agents', () => {
  let dir: string;
  let app: App;
  let fleet: Fleet | undefined;
  let offers: Map<string, number>;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-configs-'));
    writeFileSync(join(dir, 'base.yaml'), configFile('receivers: {otlp: {}}'));
    app = await startApp({ config: { remote_config: { dir } } });
    offers = new Map();
    app.bus.events$.subscribe((e: FleetEvent) => {
      if (e.type === 'AgentRemoteConfigOffered') offers.set(e.data.uid, (offers.get(e.data.uid) ?? 0) + 1);
    });
  });
  afterEach(async () => {
    await fleet?.stop();
    fleet = undefined;
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const desiredHashes = () =>
    new Set([...app.registry.values()].map((a) => app.desired.desiredFor(a)?.hash ?? 'none'));
  const states = () => [...app.registry.values()].map((a) => configStateOf(a, app.desired.desiredFor(a)));

  it('delivers to WebSocket agents, which apply it, and pushes a change without waiting for a heartbeat', async () => {
    fleet = createFleet({ ...fleetOptions, url: app.urls.opamp, transport: 'ws', heartbeatMs: 3_600_000 });
    await fleet.start();
    await eventually(() => Promise.resolve(fleet!.snapshot().configs.applied === 8), 'all agents applied');
    const [first] = desiredHashes();
    expect(fleet.snapshot().configs.byHash).to.deep.equal({ [first!]: 8 });
    await eventually(() => Promise.resolve(states().every((s) => s === 'applied')), 'the service to see it');

    writeFileSync(join(dir, 'base.yaml'), configFile('receivers: {otlp: {}, prometheus: {}}'));
    await eventually(
      () => Promise.resolve(changedOnEveryAgent(fleet!, first)),
      'the change to reach every agent (heartbeats are an hour apart)',
    );
    expect([...offers.values()]).to.deep.equal(Array(8).fill(2));
  });

  it('serves plain-HTTP agents in the reply to their next poll', async () => {
    fleet = createFleet({ ...fleetOptions, url: app.urls.opamp, transport: 'http', heartbeatMs: 300 });
    await fleet.start();
    await eventually(() => Promise.resolve(fleet!.snapshot().configs.applied === 8), 'all agents applied');
    writeFileSync(join(dir, 'base.yaml'), configFile('receivers: {}'));
    const [before] = Object.keys(fleet.snapshot().configs.byHash);
    await eventually(
      () => Promise.resolve(changedOnEveryAgent(fleet!, before)),
      'the change to reach every polling agent',
    );
  });

  it('never sends a config again to an agent that took it and rolled back to the one before', async () => {
    fleet = createFleet({
      ...fleetOptions,
      url: app.urls.opamp,
      transport: 'mix',
      heartbeatMs: 100,
      configRollbackRate: 1,
    });
    await fleet.start();
    await eventually(() => Promise.resolve(fleet!.snapshot().configs.applied === 8), 'all agents applied');
    const [first] = desiredHashes();
    writeFileSync(join(dir, 'base.yaml'), configFile('receivers: {otlp: {}, prometheus: {}}'));
    await eventually(
      () => Promise.resolve(states().every((s) => s === 'rolled_back')),
      'every agent to take the new config and go back',
    );
    const sentBy = fleet.snapshot().sent;
    await eventually(() => Promise.resolve(fleet!.snapshot().sent > sentBy + 40), 'more heartbeats');
    expect([...offers.values()], 'one offer of each config per agent').to.deep.equal(Array(8).fill(2));
    expect(fleet.snapshot().configs.byHash).to.deep.equal({ [first!]: 8 });
    const [uid] = [...offers.keys()];
    const detail = (await (await fetch(`${app.urls.ui}/api/agents/${uid}`)).json()) as {
      remote_config: { config_state: string; reported_hash: string; rolled_back_from: string };
    };
    const [second] = desiredHashes();
    expect(detail.remote_config).to.deep.include({
      config_state: 'rolled_back',
      reported_hash: first,
      rolled_back_from: second,
    });
    const page = await (await fetch(`${app.urls.ui}/agents/${uid}`)).text();
    expect(page).to.include('Rolled back</span>');
    expect(page).to.include(`The agent took config <span class="mono">${second!.slice(0, 12)}</span>`);
  });

  it('never sends the same config again to an agent that reported FAILED for it', async () => {
    fleet = createFleet({
      ...fleetOptions,
      url: app.urls.opamp,
      transport: 'mix',
      heartbeatMs: 100,
      configFailRate: 1,
    });
    await fleet.start();
    await eventually(() => Promise.resolve(fleet!.snapshot().configs.failed === 8), 'all agents failed');
    const sentBy = fleet.snapshot().sent;
    await eventually(() => Promise.resolve(fleet!.snapshot().sent > sentBy + 40), 'more heartbeats');
    expect([...offers.values()]).to.deep.equal(Array(8).fill(1));
    expect(states()).to.deep.equal(Array(8).fill('failed'));
  });

  it("serves Elastic's client, which reports APPLIED with the hash it got", async () => {
    const uidBytes = uuidv7Bytes(Date.now());
    const uid = toInstanceUid(uidBytes) as InstanceUid;
    const client = createOpAMPClient({
      endpoint: `${app.urls.opamp}/v1/opamp`,
      instanceUid: uidBytes,
      heartbeatIntervalSeconds: 1,
      capabilities: BigInt(0x1 | 0x2 | 0x1000), // ReportsStatus | AcceptsRemoteConfig | ReportsRemoteConfig
      onMessage: ({ remoteConfig }: { remoteConfig?: { configHash?: Uint8Array } }) => {
        if (remoteConfig?.configHash)
          client.setRemoteConfigStatus({
            status: RemoteConfigStatuses.RemoteConfigStatuses_APPLIED,
            lastRemoteConfigHash: remoteConfig.configHash,
          });
      },
    });
    client.setAgentDescription({
      identifyingAttributes: { 'service.name': 'checkout', 'service.version': '1.4.2' },
    });
    client.start();
    try {
      const applied = () => {
        const agent = app.registry.get(uid);
        return agent !== undefined && configStateOf(agent, app.desired.desiredFor(agent)) === 'applied';
      };
      await eventually(() => Promise.resolve(applied()), 'the Elastic client to apply the config');
      expect(offers.get(uid)).to.equal(1);
    } finally {
      await client.shutdown();
    }
  });
});
