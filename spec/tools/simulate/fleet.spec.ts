import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { createFleet, type FleetOptions } from '../../../tools/simulate/fleet.ts';
import { startApp } from '../../support/startApp.ts';

const base: Omit<FleetOptions, 'url'> = {
  agents: 12,
  transport: 'mix',
  gateways: 0,
  heartbeatMs: 200,
  flapRate: 0.5,
  configBytes: 2048,
  attributes: 10,
  churnPerSecond: 0,
  rampPerSecond: 0,
  localAddresses: [],
};

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(check(), what).to.equal(true);
}

describe('fleet simulator against the service', () => {
  let app: App;
  beforeEach(async () => {
    app = await startApp({ config: { fleet: { heartbeat_interval: '5s' } } });
  });
  afterEach(async () => {
    await app.stop();
  });

  it('registers agents over WebSocket and HTTP with realistic descriptions and configs of the chosen size', async () => {
    const fleet = createFleet({ ...base, url: app.urls.opamp });
    try {
      await fleet.start();
      await until(
        () => fleet.snapshot().connected === 12 && app.registry.size === 12,
        'all agents registered',
      );
      const agents = [...app.registry.values()];
      expect(new Set(agents.map((a) => a.session.transport))).to.deep.equal(new Set(['ws', 'http']));
      for (const a of agents) {
        expect(Object.keys(a.description?.identifying ?? {})).to.include.members([
          'service.name',
          'service.version',
        ]);
        expect(Object.keys(a.description?.nonIdentifying ?? {})).to.include.members(['host.name', 'os.type']);
        const attributes =
          Object.keys(a.description!.identifying).length + Object.keys(a.description!.nonIdentifying).length;
        expect(attributes).to.equal(10);
        expect(a.effectiveConfig?.['collector.yaml']?.body).to.have.length(2048);
      }
    } finally {
      await fleet.stop();
    }
    expect(fleet.snapshot().errors).to.equal(0);
  });

  it('heartbeats in sequence and flaps health without making the server ask for full state', async () => {
    const fleet = createFleet({ ...base, url: app.urls.opamp, transport: 'ws' });
    const flips = new Set<string>();
    const fullStateRequests: string[] = [];
    const sub = app.bus.events$.subscribe((e) => {
      if (e.type === 'AgentHealthReported' && !e.data.health.healthy) flips.add(e.data.uid);
      if (e.type === 'AgentFullStateRequested') fullStateRequests.push(e.data.reason);
    });
    try {
      await fleet.start();
      await until(() => flips.size >= 3, 'some agents reported unhealthy');
      await until(() => [...app.registry.values()].some((a) => a.sequenceNum >= 3n), 'heartbeats arrived');
    } finally {
      sub.unsubscribe();
      await fleet.stop();
    }
    expect(fullStateRequests).to.deep.equal([]);
  });

  it('relays agents through a gateway connection, admitted by the gateway connect handshake', async () => {
    const fleet = createFleet({ ...base, url: app.urls.opamp, transport: 'ws', gateways: 1, agents: 5 });
    try {
      await fleet.start();
      await until(() => app.registry.size === 5, 'relayed agents registered');
      const sessions = [...app.registry.values()].map((a) => a.session);
      expect(sessions.every((s) => s.viaGateway)).to.equal(true);
      expect(new Set(sessions.map((s) => s.connectionId)).size).to.equal(1);
    } finally {
      await fleet.stop();
    }
  });

  it('churns: agents disconnect, restart and are replaced by new ones', async () => {
    const fleet = createFleet({ ...base, url: app.urls.opamp, transport: 'ws', churnPerSecond: 40 });
    const disconnects = { agent_disconnect: 0, connection_closed: 0 };
    const sub = app.bus.events$.subscribe((e) => {
      if (e.type === 'AgentDisconnected' && e.data.reason !== 'heartbeat_missed')
        disconnects[e.data.reason]++;
    });
    try {
      await fleet.start();
      await until(() => app.registry.size > 12, 'new agents replaced old ones');
      await until(
        () => disconnects.agent_disconnect > 0 && disconnects.connection_closed > 0,
        'both kinds of disconnect',
      );
    } finally {
      sub.unsubscribe();
      await fleet.stop();
    }
  });
});
