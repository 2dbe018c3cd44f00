import { expect } from 'chai';
import { VirtualTimeScheduler } from 'rxjs';
import type { App } from '../../src/app.ts';
import type { FleetEvent } from '../../src/events/fleetEvent.ts';
import type { ConnectionId, InstanceUid } from '../../src/events/ids.ts';
import { Registry as PromRegistry } from 'prom-client';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { createEventBus } from '../../src/events/bus.ts';
import { createComplianceCounters } from '../../src/projections/compliance/complianceCounters.ts';
import { createFleetCountersProjection } from '../../src/projections/metrics/fleetCounters.ts';
import { createRegistryProjection } from '../../src/projections/registry/registryProjection.ts';
import { registerFleetMetrics } from '../../src/telemetry/fleetMetrics.ts';
import { encodeAgentToServer } from '../../src/io/opamp/codec.ts';
import { fleetCounts } from '../../src/projections/registry/fleetCounts.ts';
import { agentMessage, description, newUid, postHttp, WsAgent } from '../support/agentClient.ts';
import { startApp } from '../support/startApp.ts';
import { labelNamesOf, scrape, type Exposition } from './scrape.ts';

/** SPEC "Metrics", fleet registry: name → [type, label names]. */
const fleetTable: Record<string, [string, string[]]> = {
  svc_agents_connected: ['GAUGE', ['transport', 'via']],
  svc_agents_disconnected: ['GAUGE', []],
  svc_agents_evicted_total: ['COUNTER', []],
  svc_agent_connects_total: ['COUNTER', []],
  svc_agent_disconnects_total: ['COUNTER', []],
  svc_gateway_connections: ['GAUGE', []],
  svc_gateway_connects_total: ['COUNTER', ['result']],
  svc_agent_health: ['GAUGE', ['instance_uid']],
  svc_agent_last_seen_timestamp_seconds: ['GAUGE', ['instance_uid']],
  svc_agents_awaiting_full_state: ['GAUGE', []],
  svc_agents_noncompliant: ['GAUGE', []],
  svc_agents_supervisor_managed: ['GAUGE', []],
  svc_agent_missing_attributes_total: ['COUNTER', ['attribute']],
  svc_agent_reserved_attribute_conflicts_total: ['COUNTER', ['attribute']],
  svc_agent_reports_total: ['COUNTER', ['type']],
  svc_fleet_size: ['GAUGE', []],
  svc_agent_series_capped: ['GAUGE', []],
  // Remote configuration (docs/remote-config.md).
  svc_agents_config_state: ['GAUGE', ['state']],
  svc_remote_configs_sent_total: ['COUNTER', []],
  svc_remote_config_rejected_total: ['COUNTER', []],
};

const gatewayConnect = (data: string) =>
  encodeAgentToServer({
    customMessage: {
      capability: 'com.vendor.opamp-gateway',
      type: 'connect',
      data: new TextEncoder().encode(data),
    },
  });

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).to.equal(true);
}

describe('fleet metrics (/metrics/fleet)', () => {
  const clock = new VirtualTimeScheduler();
  clock.frame = 1_700_000_000_000;
  const advance = (ms: number) => {
    const target = clock.frame + ms;
    clock.maxFrames = target;
    clock.flush();
    clock.frame = target;
  };
  let app: App;
  const sockets: WsAgent[] = [];
  const seen = new Map<string, number>();
  const open = async () => {
    const ws = await WsAgent.open(app.urls.opamp);
    sockets.push(ws);
    return ws;
  };
  const fleet = () => scrape(`${app.urls.telemetry}/metrics/fleet`);

  before(async () => {
    app = await startApp({
      config: {
        fleet: {
          heartbeat_interval: '10s',
          stale_missed_heartbeats: 3,
          required_attributes: ['service.name', 'deployment.environment'],
        },
      },
      deps: { scheduler: clock },
    });
    app.bus.events$.subscribe((e: FleetEvent) => seen.set(e.type, (seen.get(e.type) ?? 0) + 1));
  });
  after(async () => {
    await Promise.all(sockets.map((s) => s.close()));
    await app.stop();
  });

  const a = newUid();
  const b = newUid();
  const c = newUid();
  const d = newUid();
  let gateway: WsAgent;

  it('exports every SPEC fleet metric with its type and labels, and nothing from the server registry', async () => {
    const m = await fleet();
    for (const [name, [type, labels]] of Object.entries(fleetTable)) {
      expect(m.family(name).type, name).to.equal(type);
      if (m.family(name).metrics.length > 0)
        expect(labelNamesOf(m.family(name)), name).to.deep.equal([...labels].sort());
    }
    expect([...m.families.keys()].filter((n) => !(n in fleetTable))).to.deep.equal([]);
    expect(m.value('svc_fleet_size')).to.equal(0);
  });

  it('follows a scripted fleet: reports of each type, compliance, transports, gateways, bad input', async () => {
    const wsA = await open();
    await wsA.send(
      agentMessage(a, {
        agentDescription: description({ 'service.name': 'a' }),
        health: { healthy: true, status: 'running' },
        effectiveConfig: {
          configMap: {
            configMap: { '': { body: new TextEncoder().encode('x: 1'), contentType: 'text/yaml' } },
          },
        },
        packageStatuses: { packages: { p: { name: 'p', agentHasVersion: '1' } }, errorMessage: '' },
      }),
    );
    const httpB = await postHttp(
      app.urls.opamp,
      agentMessage(b, {
        agentDescription: description(
          { 'service.name': 'b', 'deployment.environment': 'prod', healthy: 'yes' },
          { 'opamp.managed_by': 'opentelemetry-opampsupervisor' },
        ),
        health: { healthy: false, lastError: 'down' },
      }),
    );
    expect(httpB.status).to.equal(200);
    const wsC = await open();
    await wsC.send(agentMessage(c));
    await wsC.close();
    await until(() => app.registry.get(c as InstanceUid)?.connected === false);

    gateway = await open();
    await gateway.send(
      gatewayConnect(JSON.stringify({ request_uid: 'r1', remote_address: '10.0.0.1:5000' })),
    );
    await gateway.send(agentMessage(d));
    const rejecting = await open();
    await rejecting.send(gatewayConnect('{not json'));
    const bad = await postHttp(app.urls.opamp, new Uint8Array([0xff, 0xff, 0xff, 0xff]));
    expect(bad.status).to.equal(400);

    const m = await fleet();
    expect(m.value('svc_agent_connects_total')).to.equal(4);
    expect(m.value('svc_agent_disconnects_total')).to.equal(1);
    expect(m.value('svc_agents_evicted_total')).to.equal(0);
    expect(m.value('svc_agent_reports_total', { type: 'status' })).to.equal(2);
    expect(m.value('svc_agent_reports_total', { type: 'health' })).to.equal(2);
    expect(m.value('svc_agent_reports_total', { type: 'effective_config' })).to.equal(1);
    expect(m.value('svc_agent_reports_total', { type: 'package_statuses' })).to.equal(1);
    expect(m.value('svc_agent_missing_attributes_total', { attribute: 'deployment.environment' })).to.equal(
      1,
    );
    expect(m.value('svc_agent_missing_attributes_total', { attribute: 'service.name' })).to.equal(0);
    expect(m.value('svc_agent_reserved_attribute_conflicts_total', { attribute: 'healthy' })).to.equal(1);
    expect(m.value('svc_agent_reserved_attribute_conflicts_total', { attribute: 'connected' })).to.equal(0);
    expect(m.value('svc_gateway_connects_total', { result: 'accepted' })).to.equal(1);
    expect(m.value('svc_gateway_connects_total', { result: 'rejected' })).to.equal(1);
    expect(m.value('svc_gateway_connections')).to.equal(1);

    expect(m.value('svc_agents_connected', { transport: 'ws', via: 'direct' })).to.equal(1);
    expect(m.value('svc_agents_connected', { transport: 'ws', via: 'gateway' })).to.equal(1);
    expect(m.value('svc_agents_connected', { transport: 'http', via: 'direct' })).to.equal(1);
    expect(m.value('svc_agents_connected', { transport: 'http', via: 'gateway' })).to.equal(0);
    expect(m.value('svc_agents_disconnected')).to.equal(1);
    expect(m.value('svc_agents_awaiting_full_state')).to.equal(2);
    expect(m.value('svc_agents_noncompliant')).to.equal(1);
    expect(m.value('svc_agents_supervisor_managed')).to.equal(1);
    expect(m.value('svc_fleet_size')).to.equal(4);
    expect(m.value('svc_agent_series_capped')).to.equal(0);

    expect(m.value('svc_agent_health', { instance_uid: a })).to.equal(1);
    expect(m.value('svc_agent_health', { instance_uid: b })).to.equal(0);
    expect(m.samples('svc_agent_health').map((s) => s.labels?.instance_uid)).to.have.members([a, b]);
    for (const uid of [a, b, c, d])
      expect(m.value('svc_agent_last_seen_timestamp_seconds', { instance_uid: uid })).to.equal(
        clock.now() / 1000,
      );
  });

  it('agrees with the events on the bus and with the fleet counts of /api/status', async () => {
    const m = await fleet();
    expect(m.value('svc_agent_connects_total')).to.equal(seen.get('AgentConnected'));
    expect(m.value('svc_agent_disconnects_total')).to.equal(seen.get('AgentDisconnected'));
    const counts = fleetCounts(app.registry.values());
    expect(m.value('svc_fleet_size')).to.equal(counts.total);
    expect(m.value('svc_agents_disconnected')).to.equal(counts.disconnected);
    expect(m.value('svc_agents_awaiting_full_state')).to.equal(counts.awaiting_full_state);
    const connected = m.samples('svc_agents_connected').reduce((n, s) => n + Number(s.value), 0);
    expect(connected).to.equal(counts.connected);
  });

  it('closes the gateway connection and disconnects the agents behind it', async () => {
    await gateway.close();
    await until(() => app.registry.get(d as InstanceUid)?.connected === false);
    const m = await fleet();
    expect(m.value('svc_gateway_connections')).to.equal(0);
    expect(m.value('svc_agent_disconnects_total')).to.equal(2);
    expect(m.value('svc_agents_connected', { transport: 'ws', via: 'gateway' })).to.equal(0);
  });

  it('counts evictions after the missed check-in threshold and drops the evicted agents series', async () => {
    advance(31_000);
    // A's socket could not answer its ping while the clock jumped: it is cut, which disconnects A,
    // and A is evicted once the threshold has passed since then.
    await until(() => app.registry.get(a as InstanceUid)?.connected === false);
    advance(31_000);
    const m: Exposition = await fleet();
    expect(m.value('svc_agents_evicted_total')).to.equal(4);
    expect(m.value('svc_agents_evicted_total')).to.equal(seen.get('AgentEvicted'));
    // A (ws, cut) and B (http, by the sweep) were disconnected before their eviction.
    expect(m.value('svc_agent_disconnects_total')).to.equal(4);
    expect(m.value('svc_fleet_size')).to.equal(0);
    expect(m.samples('svc_agent_health')).to.deep.equal([]);
    expect(m.samples('svc_agent_last_seen_timestamp_seconds')).to.deep.equal([]);
    // Counters keep what they counted.
    expect(m.value('svc_agent_connects_total')).to.equal(4);
    expect(m.value('svc_agent_missing_attributes_total', { attribute: 'deployment.environment' })).to.equal(
      1,
    );
  });
});

describe('fleet registry fed by events (no listener)', () => {
  const uid = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}` as InstanceUid;
  const at = 1_700_000_000_000;
  const session = {
    connectionId: 1 as ConnectionId,
    transport: 'http' as const,
    viaGateway: true,
    remoteAddr: 'x',
    tlsSubject: null,
  };

  function collector(limit: number, requiredAttributes: string[] = []) {
    const bus = createEventBus();
    const onError = (_p: string, e: unknown) => {
      throw e;
    };
    const registry = createRegistryProjection(bus.events$, onError);
    const compliance = createComplianceCounters(bus.events$, onError);
    const counters = createFleetCountersProjection(bus.events$, onError);
    const fleet = new PromRegistry();
    registerFleetMetrics({
      register: fleet,
      agents: registry,
      counters,
      compliance,
      perAgentSeriesLimit: limit,
      requiredAttributes,
      desiredFor: () => undefined,
    });
    const read = async () =>
      new Map(parsePrometheusTextFormat(await fleet.metrics()).map((f) => [f.name, f]));
    return { bus, read };
  }

  it('turns published events into counter and gauge values', async () => {
    const { bus, read } = collector(10, ['env']);
    bus.publish({ type: 'AgentConnected', at, data: { uid: uid(1), session } });
    bus.publish({
      type: 'AgentHealthReported',
      at,
      data: {
        uid: uid(1),
        health: {
          healthy: false,
          startTimeNanos: 0n,
          lastError: 'x',
          status: '',
          statusTimeNanos: 0n,
          components: {},
        },
      },
    });
    bus.publish({
      type: 'AgentComplianceChanged',
      at,
      data: {
        uid: uid(1),
        missing: ['env'],
        conflicts: ['connected'],
        newlyMissing: ['env'],
        newlyConflicting: ['connected'],
      },
    });
    const m = await read();
    const one = (name: string, labels: Record<string, string> = {}) =>
      m.get(name)?.metrics.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v))?.value;
    expect(one('svc_agents_connected', { transport: 'http', via: 'gateway' })).to.equal('1');
    expect(one('svc_agent_health', { instance_uid: uid(1) })).to.equal('0');
    expect(one('svc_agent_last_seen_timestamp_seconds', { instance_uid: uid(1) })).to.equal(
      String(at / 1000),
    );
    expect(one('svc_agent_missing_attributes_total', { attribute: 'env' })).to.equal('1');
    expect(one('svc_agent_reserved_attribute_conflicts_total', { attribute: 'connected' })).to.equal('1');
    expect(one('svc_agent_reports_total', { type: 'health' })).to.equal('1');
    expect(one('svc_agents_noncompliant')).to.equal('1');
  });

  it('gives the same values on every scrape while nothing happens', async () => {
    const { bus, read } = collector(10);
    bus.publish({ type: 'AgentConnected', at, data: { uid: uid(1), session } });
    const first = JSON.stringify([...(await read()).entries()]);
    const second = JSON.stringify([...(await read()).entries()]);
    expect(second).to.equal(first);
  });
});
