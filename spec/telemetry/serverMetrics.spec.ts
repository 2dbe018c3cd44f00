import { expect } from 'chai';
import type { App } from '../../src/app.ts';
import { readBuildInfo } from '../../src/io/buildInfo.ts';
import { agentMessage, newUid, postHttp, WsAgent } from '../support/agentClient.ts';
import { startApp } from '../support/startApp.ts';
import { labelNamesOf, scrape } from './scrape.ts';

/** SPEC "Metrics", server registry (without the persistence-only counter): name → [type, label names]. */
const serverTable: Record<string, [string, string[]]> = {
  svc_build_info: ['GAUGE', ['commit', 'go_version', 'version']],
  svc_config_info: [
    'GAUGE',
    [
      'heartbeat_interval',
      'log_format',
      'log_level',
      'mtls_enabled',
      'per_agent_series_limit',
      'stale_missed_heartbeats',
      'tls_enabled',
    ],
  ],
  svc_opamp_messages_total: ['COUNTER', []],
  svc_opamp_message_errors_total: ['COUNTER', []],
  svc_api_requests_total: ['COUNTER', ['code', 'method', 'route']],
  svc_api_request_duration_seconds: ['HISTOGRAM', ['code', 'method', 'route']],
};

describe('server metrics (/metrics)', () => {
  let app: App;
  before(async () => {
    app = await startApp({
      config: {
        log: { level: 'warn', format: 'json' },
        fleet: { heartbeat_interval: '1m30s', stale_missed_heartbeats: 4 },
        metrics: { per_agent_series_limit: 250 },
      },
    });
  });
  after(() => app.stop());
  const server = () => scrape(`${app.urls.telemetry}/metrics`);

  it('carries build identity, the settings in effect and the default process collectors', async () => {
    const m = await server();
    const build = readBuildInfo(process.env);
    expect(m.samples('svc_build_info')).to.deep.equal([{ value: '1', labels: { ...build } }]);
    expect(m.samples('svc_config_info')).to.deep.equal([
      {
        value: '1',
        labels: {
          log_level: 'warn',
          log_format: 'json',
          tls_enabled: 'false',
          mtls_enabled: 'false',
          heartbeat_interval: '1m30s',
          stale_missed_heartbeats: '4',
          per_agent_series_limit: '250',
        },
      },
    ]);
    expect(m.family('process_cpu_user_seconds_total').type).to.equal('COUNTER');
    expect(m.family('nodejs_eventloop_lag_seconds').type).to.equal('GAUGE');
    expect([...m.families.keys()].filter((n) => n.startsWith('svc_agent'))).to.deep.equal([]);
  });

  it('counts OpAMP messages and the ones that fail to read or decode', async () => {
    const before = await server();
    const ws = await WsAgent.open(app.urls.opamp);
    try {
      await ws.send(agentMessage(newUid()));
      await ws.send(agentMessage(newUid()));
      await postHttp(app.urls.opamp, agentMessage(newUid()));
      await postHttp(app.urls.opamp, new Uint8Array([0xff, 0xff, 0xff, 0xff]));
    } finally {
      await ws.close();
    }
    const after = await server();
    const delta = (name: string) => after.value(name)! - before.value(name)!;
    expect(delta('svc_opamp_messages_total')).to.equal(4);
    expect(delta('svc_opamp_message_errors_total')).to.equal(1);
  });

  it('times the instrumented API routes under their templates, never a concrete id', async () => {
    const uid = newUid();
    await postHttp(app.urls.opamp, agentMessage(uid));
    const paths = [
      '/api/agents',
      `/api/agents/${uid}`,
      `/api/agents/${newUid()}`,
      '/api/status',
      '/api/attributes',
    ];
    for (const path of [...paths, '/api/attributes/values?key=service.name'])
      await (await fetch(`${app.urls.ui}${path}`)).text();

    const m = await server();
    for (const [name, [type, labels]] of Object.entries(serverTable)) {
      expect(m.family(name).type, name).to.equal(type);
      if (type !== 'HISTOGRAM') expect(labelNamesOf(m.family(name)), name).to.deep.equal([...labels].sort());
    }
    const requests = m.samples('svc_api_requests_total');
    expect(new Set(requests.map((s) => s.labels?.route))).to.deep.equal(
      new Set([
        '/api/agents',
        '/api/agents/{id}',
        '/api/status',
        '/api/attributes',
        '/api/attributes/values',
      ]),
    );
    expect(
      m.value('svc_api_requests_total', { route: '/api/agents/{id}', method: 'GET', code: '200' }),
    ).to.equal(1);
    expect(
      m.value('svc_api_requests_total', { route: '/api/agents/{id}', method: 'GET', code: '404' }),
    ).to.equal(1);
    const histogram = { route: '/api/status', method: 'GET', code: '200' };
    const timed = m.histogram('svc_api_request_duration_seconds', histogram);
    expect(timed?.count).to.equal('1');
    expect(m.text).to.not.include(uid);
    // prom-client's default buckets (plus +Inf), as SPEC asks.
    expect(Object.keys(timed?.buckets ?? {})).to.have.members([
      '0.005',
      '0.01',
      '0.025',
      '0.05',
      '0.1',
      '0.25',
      '0.5',
      '1',
      '2.5',
      '5',
      '10',
      '+Inf',
    ]);
  });

  it('exports no metric that the fleet registry exports', async () => {
    const [s, f] = await Promise.all([server(), scrape(`${app.urls.telemetry}/metrics/fleet`)]);
    expect([...s.families.keys()].filter((n) => f.families.has(n))).to.deep.equal([]);
  });
});
