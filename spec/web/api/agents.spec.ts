import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { agentMessage, description, newUid, postHttp, WsAgent } from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';
import { errorOf, request } from './apiClient.ts';

interface Summary {
  instance_uid: string;
  display_name: string;
  healthy: boolean;
  health_reported: boolean;
  connected: boolean;
  connection: { transport: string; via_gateway: boolean };
  health_start_time: string | null;
  effective_config?: unknown;
}
interface ListBody {
  agents: Summary[];
  total: number;
  limit: number;
  offset: number;
  partial: boolean;
}

describe('GET /api/agents and /api/agents/{id} over a running service', () => {
  let app: App;
  let collector: WsAgent;
  let quiet: WsAgent;
  const uids = { collector: newUid(), edge: newUid(), quiet: newUid() };
  const sorted = () => Object.values(uids).sort();
  const api = (path: string) => request(`${app.urls.ui}${path}`);
  const list = async (query: string) => {
    const r = await api(`/api/agents${query}`);
    expect(r.status, r.text).to.equal(200);
    return r.json as ListBody;
  };

  before(async () => {
    app = await startApp();
    collector = await WsAgent.open(app.urls.opamp);
    await collector.send(
      agentMessage(uids.collector, {
        capabilities: '9223372036854777857', // bit 63 + ReportsHealth + ReportsStatus
        agentDescription: description(
          { 'service.name': 'collector', env: 'prod' },
          { 'host.name': 'node-a' },
        ),
        health: { healthy: true, startTimeUnixNano: '1714557600123456789', status: 'ok' },
      }),
    );
    const edge = await postHttp(
      app.urls.opamp,
      agentMessage(uids.edge, {
        agentDescription: description({ 'service.name': 'edge', env: 'staging' }),
        health: {
          healthy: false,
          lastError: 'exporter failing',
          componentHealthMap: { exporter: { healthy: false, lastError: 'timeout' } },
        },
        effectiveConfig: {
          configMap: {
            configMap: { 'edge.yaml': { body: Buffer.from('receivers: {}'), contentType: 'text/yaml' } },
          },
        },
      }),
    );
    expect(edge.status).to.equal(200);
    quiet = await WsAgent.open(app.urls.opamp);
    await quiet.send(agentMessage(uids.quiet));
  });
  after(async () => {
    await collector.close();
    await quiet.close();
    await app.stop();
  });

  it('lists every agent in instance_uid order with the default page', async () => {
    const body = await list('');
    expect(body.agents.map((a) => a.instance_uid)).to.deep.equal(sorted());
    expect(body).to.include({ total: 3, limit: 100, offset: 0, partial: false });
    expect(body.agents.every((a) => a.effective_config === undefined)).to.equal(true);
  });

  it('answers application/json with capabilities as an exact unsigned 64-bit number', async () => {
    const r = await api(`/api/agents?match=service.name=collector`);
    expect(r.contentType).to.match(/^application\/json/);
    expect(r.text).to.contain('"capabilities":9223372036854777857');
  });

  it('pages after filtering and reports the filtered total', async () => {
    const body = await list('?limit=1&offset=1');
    expect(body.agents.map((a) => a.instance_uid)).to.deep.equal([sorted()[1]]);
    expect(body).to.include({ total: 3, limit: 1, offset: 1 });
    const staging = await list('?match=env!=prod&limit=1');
    expect(staging.total).to.equal(2);
    expect(staging.agents).to.have.length(1);
  });

  it('filters with matchers, bare keys, legacy pairs and booleans', async () => {
    const names = async (q: string) => (await list(q)).agents.map((a) => a.display_name).sort();
    expect(await names('?match=service.name=~"col.*"')).to.deep.equal(['collector']);
    expect(await names('?match=env%20!~%20prod')).to.have.members(['edge', uids.quiet]);
    expect(await names('?host.name=node-a')).to.deep.equal(['collector']);
    expect(await names('?attr_key=env&attr_value=staging')).to.deep.equal(['edge']);
    expect(await names('?healthy=true')).to.deep.equal(['collector']);
    expect(await names('?healthy=false')).to.deep.equal(['edge']);
    expect(await names('?via_gateway=true')).to.deep.equal([]);
    expect(await names('?connected=true&match=env=~prod|staging&sort=name&order=desc')).to.deep.equal([
      'collector',
      'edge',
    ]);
  });

  it('reads each match as a comma list, with the status fields as fields (issue 30)', async () => {
    const names = async (q: string) => (await list(q)).agents.map((a) => a.display_name).sort();
    const q = (text: string) => `?match=${encodeURIComponent(text)}`;
    expect(await names(q('service.name=~"col.*", healthy=true'))).to.deep.equal(['collector']);
    expect(await names(q('service.name=~"col.*", healthy=false'))).to.deep.equal([]);
    expect(await names(q('env=~"prod|staging", connected=true'))).to.deep.equal(['collector', 'edge']);
    expect(await names(`${q('env=~"prod|staging"')}&${q('healthy=false').slice(1)}`)).to.deep.equal(['edge']);
  });

  it('shows disconnected agents as connected=false', async () => {
    const other = await WsAgent.open(app.urls.opamp);
    const uid = newUid();
    await other.send(agentMessage(uid, { agentDescription: description({ 'service.name': 'gone' }) }));
    await other.close();
    for (let i = 0; i < 100 && app.registry.get(uid as InstanceUid)?.connected !== false; i++)
      await new Promise((r) => setTimeout(r, 10));
    const body = await list('?connected=false');
    expect(body.agents.map((a) => a.instance_uid)).to.deep.equal([uid]);
  });

  const badLists: [string, RegExp][] = [
    ['?limit=0', /limit must be an integer from 1 to 1000/],
    ['?limit=1001', /limit/],
    ['?limit=ten', /limit/],
    ['?offset=-1', /offset must be an integer ≥ 0/],
    ['?offset=1.5', /offset/],
    ['?healthy=yes', /healthy must be true or false/],
    ['?connected=1', /connected must be true or false/],
    ['?via_gateway=', /via_gateway must be true or false/],
    ['?match=env', /no operator/],
    ['?match=env=~(a', /invalid regex/],
    ['?match=env="prod', /unterminated/],
    [
      `?match=${encodeURIComponent('env=prod, healthy=maybe')}`,
      /healthy must be true or false.*at character 19/,
    ],
    ['?attr_key=env', /attr_key and attr_value/],
    [
      `?${Array.from({ length: 33 }, (_, i) => `match=k${i}=v`).join('&')}`,
      /too many matchers: 33 given, at most 32/,
    ],
    [`?match=k=~${'a'.repeat(1025)}`, /longer than 1024 bytes/],
  ];
  for (const [query, message] of badLists) {
    it(`answers 400 with a JSON error for ${query.slice(0, 60)}`, async () => {
      const r = await api(`/api/agents${query}`);
      expect(r.status).to.equal(400);
      expect(r.contentType).to.match(/^application\/json/);
      expect(errorOf(r)).to.match(message);
    });
  }

  it('returns the detail view with effective config and nested component health', async () => {
    const r = await api(`/api/agents/${uids.edge}`);
    expect(r.status).to.equal(200);
    const d = r.json as Summary & {
      effective_config: Record<string, string>;
      packages: unknown[];
      health: { components: Record<string, { last_error: string }> };
    };
    expect(d.instance_uid).to.equal(uids.edge);
    expect(d.connection.transport).to.equal('http');
    expect(d.effective_config).to.deep.equal({ 'edge.yaml': 'receivers: {}' });
    expect(d.packages).to.deep.equal([]);
    expect(d.health.components.exporter?.last_error).to.equal('timeout');
  });

  it('keeps nanosecond health times and reports unset ones as null', async () => {
    const d = (await api(`/api/agents/${uids.collector}`)).json as Summary & {
      health_status_time: string | null;
    };
    expect(d.health_start_time).to.equal('2024-05-01T10:00:00.123456789Z');
    expect(d.health_status_time).to.equal(null);
    const q = (await api(`/api/agents/${uids.quiet}`)).json as Summary & { health: unknown };
    expect(q).to.include({ health_reported: false, healthy: false, health_start_time: null, health: null });
  });

  it('accepts the id in upper case', async () => {
    const r = await api(`/api/agents/${uids.collector.toUpperCase()}`);
    expect(r.status).to.equal(200);
    expect((r.json as Summary).instance_uid).to.equal(uids.collector);
  });

  it('answers 404 for an unknown or malformed id and 400 for a missing one', async () => {
    const unknown = await api(`/api/agents/${newUid()}`);
    expect(unknown.status).to.equal(404);
    expect(errorOf(unknown)).to.match(/not found/);
    expect((await api('/api/agents/not-a-uid')).status).to.equal(404);
    const missing = await api('/api/agents/');
    expect(missing.status).to.equal(400);
    expect(missing.contentType).to.match(/^application\/json/);
    expect(errorOf(missing)).to.equal('missing agent id');
  });

  it('answers 404 for an evicted agent', async () => {
    const uid = newUid();
    await postHttp(app.urls.opamp, agentMessage(uid));
    expect((await api(`/api/agents/${uid}`)).status).to.equal(200);
    app.bus.publish({
      type: 'AgentEvicted',
      at: Date.now(),
      data: { uid: uid as InstanceUid, lastSeen: Date.now() },
    });
    expect((await api(`/api/agents/${uid}`)).status).to.equal(404);
  });
});
