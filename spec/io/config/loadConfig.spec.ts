import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../src/io/config/loadConfig.ts';
import { defaultReportLimits } from '../../../src/projections/agent/reportLimits.ts';
import { createPki } from '../tls/testPki.ts';
import { formatDuration, parseDuration } from '../../../src/projections/units/duration.ts';

const dir = mkdtempSync(join(tmpdir(), 'config-spec-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const problemsOf = (fn: () => unknown): readonly string[] => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
};

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig();
    expect(c.listeners).to.deep.equal({
      opamp: ':4320',
      ui: ':8080',
      telemetry: ':9090',
      header_timeout: 10_000,
    });
    expect(c.fleet).to.deep.equal({
      heartbeat_interval: 30_000,
      stale_missed_heartbeats: 3,
      required_attributes: [],
      soft_delete_duration: 168 * 3_600_000,
      max_agents: 250_000,
    });
    expect(c.agents.max_per_gateway).to.equal(10_000);
    expect(c.agents.tokens).to.deep.equal([]);
    expect(c.log).to.deep.equal({ level: 'info', format: 'text' });
    expect(c.shutdown.drain_delay).to.equal(5000);
    expect(c.metrics.per_agent_series_limit).to.equal(1000);
    expect(c.ui.poll_interval).to.equal(5000);
    expect(c.opamp).to.deep.equal({
      max_message_bytes: 16 * 1024 * 1024,
      max_connections: 50_000,
      max_unauthenticated_message_bytes: 1024 * 1024,
      unauthenticated_body_timeout: 5000,
    });
    expect(c.database).to.include({
      host: '',
      port: 5432,
      sslmode: 'disable',
      pool_max: 10,
      write_concurrency: 2,
    });
    expect(c.auth).to.deep.equal({
      role_mapping: [],
      default_role: 'none',
      api_tokens: [],
      allow_unauthenticated_writes: false,
      anonymous_reads: true,
      oidc: {
        issuer: '',
        client_id: '',
        client_secret: '',
        client_secret_file: '',
        scopes: ['openid', 'profile', 'email'],
        redirect_url: '',
        role_claim: 'groups',
        role_mapping: [],
        default_role: 'none',
      },
      first_run_link: true,
      session: { absolute_lifetime: 43_200_000, idle_lifetime: 3_600_000 },
    });
    expect(c.remote_config).to.deep.equal({ dir: '' });
    expect(Object.isFrozen(c.fleet)).to.equal(true);
  });

  it('reads API tokens from the file or the environment, refusing a token that is not a SHA-256', () => {
    const sha = 'AB'.repeat(32);
    const c = loadConfig({
      env: { SVC_AUTH_API_TOKENS: `[{name: ci, sha256: ${sha}, role: admin}]` },
    });
    expect(c.auth.api_tokens).to.deep.equal([{ name: 'ci', sha256: 'ab'.repeat(32), role: 'admin' }]);
    expect(() =>
      loadConfig({ overrides: { auth: { api_tokens: [{ name: 'x', sha256: 'secret', role: 'admin' }] } } }),
    )
      .to.throw(ConfigError)
      .with.property('message')
      .that.includes('auth.api_tokens[0].sha256');
  });

  it("reads an enrollment token's selector, refusing one that does not parse or is empty", () => {
    const sha = 'cd'.repeat(32);
    const c = loadConfig({
      env: { SVC_AGENTS_TOKENS: `[{name: prod, sha256: ${sha}, selector: env=prod}]` },
    });
    expect(c.agents.tokens).to.deep.equal([
      { name: 'prod', sha256: sha, selector: 'env=prod', gateway: false },
    ]);
    const bad = (selector: string) =>
      problemsOf(() =>
        loadConfig({ overrides: { agents: { tokens: [{ name: 'x', sha256: sha, selector }] } } }),
      );
    expect(bad('env=~"("').join()).to.include('agents.tokens[0].selector');
    expect(bad(' , ').join()).to.include('has no matcher');
  });

  it('reads own_telemetry, refusing a bad selector, an entry without a signal and an endpoint that is not http(s)', () => {
    expect(loadConfig({}).own_telemetry).to.deep.equal([]);
    const entry = {
      selector: 'env=prod',
      metrics: { endpoint: 'https://otlp.example:4318/v1/metrics', headers: { 'x-api-key': 'k' } },
    };
    expect(loadConfig({ overrides: { own_telemetry: [entry] } }).own_telemetry).to.deep.equal([entry]);
    const bad = (e: object) => problemsOf(() => loadConfig({ overrides: { own_telemetry: [e] } })).join();
    expect(bad({ ...entry, selector: 'env=~"("' })).to.include('own_telemetry[0].selector');
    expect(bad({ selector: 'env=prod' })).to.include('own_telemetry[0]');
    expect(bad({ ...entry, metrics: { endpoint: 'file:///etc/passwd' } })).to.include(
      'own_telemetry[0].metrics.endpoint',
    );
    expect(bad({ ...entry, logs: { endpoint: 'http://x', headers: { 'bad header': 'v' } } })).to.include(
      'own_telemetry[0].logs.headers',
    );
  });

  it('treats an empty file as defaults', () => {
    expect(loadConfig({ file: file('empty.yaml', '') })).to.deep.equal(loadConfig());
  });

  it('layers the YAML file, then SVC_ environment variables', () => {
    const path = file(
      'a.yaml',
      'fleet:\n  heartbeat_interval: 1m30s\n  required_attributes: [env]\nlog:\n  level: debug\n',
    );
    const c = loadConfig({
      file: path,
      env: {
        SVC_LOG_LEVEL: 'warn',
        SVC_FLEET_REQUIRED_ATTRIBUTES: 'env, team',
        SVC_LISTENERS_OPAMP: '127.0.0.1:4400',
        HOME: '/root',
      },
    });
    expect(c.fleet.heartbeat_interval).to.equal(90_000);
    expect(c.fleet.required_attributes).to.deep.equal(['env', 'team']);
    expect(c.log.level).to.equal('warn');
    expect(c.listeners.opamp).to.equal('127.0.0.1:4400');
  });

  it('reads role mappings from YAML and from the environment', () => {
    const env = {
      SVC_AUTH_ROLE_MAPPING: '[{match: prefix, spiffe_id: "spiffe://example.org/ops/", role: admin}]',
    };
    expect(loadConfig({ env }).auth.role_mapping).to.deep.equal([
      { match: 'prefix', spiffe_id: 'spiffe://example.org/ops/', role: 'admin' },
    ]);
  });

  it('rejects unknown keys and unknown SVC_ variables, naming them', () => {
    const problems = problemsOf(() =>
      loadConfig({
        file: file('b.yaml', 'fleet:\n  heartbeat: 30s\nlisteners:\n  admin: ":1"\n'),
        env: { SVC_FLEET_HEARTBEAT: '1s' },
      }),
    );
    expect(problems.join('\n'))
      .to.include('fleet.heartbeat')
      .and.include('listeners.admin')
      .and.include('SVC_FLEET_HEARTBEAT');
  });

  it('lists every problem at once', () => {
    const problems = problemsOf(() =>
      loadConfig({
        overrides: {
          log: { level: 'loud', format: 'xml' },
          fleet: { heartbeat_interval: 'soon', stale_missed_heartbeats: 0 },
          listeners: { ui: 'localhost' },
          opamp_tls: { cert_file: '/x.pem' },
        },
      }),
    );
    expect(problems.length).to.be.at.least(5);
    expect(problems.join('\n'))
      .to.include('log.level')
      .and.include('fleet.heartbeat_interval')
      .and.include('listeners.ui');
  });

  it('requires a TLS certificate and key together, and both for a client CA', () => {
    expect(problemsOf(() => loadConfig({ overrides: { ui_tls: { key_file: '/k' } } })).join()).to.include(
      'ui_tls.cert_file and ui_tls.key_file',
    );
    expect(
      problemsOf(() => loadConfig({ overrides: { telemetry_tls: { client_ca_file: '/ca' } } })).join(),
    ).to.include('telemetry_tls.client_ca_file requires');
  });

  it('reports a file that is missing or not YAML', () => {
    expect(problemsOf(() => loadConfig({ file: join(dir, 'nope.yaml') })).join()).to.include(
      'cannot read config file',
    );
    expect(problemsOf(() => loadConfig({ file: file('bad.yaml', 'fleet: [\n') })).join()).to.include(
      'not valid YAML',
    );
  });

  it('has agent limits that a real Collector never reaches, and no agent CA unless configured', () => {
    const c = loadConfig();
    expect(c.agents.limits).to.deep.equal(defaultReportLimits);
    expect(c.agents.ca).to.deep.equal({
      cert_file: '',
      key_file: '',
      trust_domain: '',
      validity: 720 * 3_600_000,
      max_per_hour: 1000,
    });
  });

  it('reads three-level keys from the environment (SVC_AGENTS_LIMITS_..., SVC_AGENTS_CA_...)', () => {
    const c = loadConfig({
      env: {
        SVC_AGENTS_LIMITS_ATTRIBUTE_COUNT: '64',
        SVC_AGENTS_LIMITS_EFFECTIVE_CONFIG_SIZE: '1MiB',
        SVC_AGENTS_CA_VALIDITY: '24h',
      },
    });
    expect(c.agents.limits.attribute_count).to.equal(64);
    expect(c.agents.limits.effective_config_size).to.equal(1024 * 1024);
    expect(c.agents.ca.validity).to.equal(86_400_000);
    expect(problemsOf(() => loadConfig({ env: { SVC_AGENTS_CA: 'x' } })).join()).to.include(
      'unknown environment variable SVC_AGENTS_CA',
    );
  });

  it('stops on an agent CA that is not a CA, naming the key, and on a trust domain that is not one', () => {
    const pki = createPki();
    try {
      const leaf = pki.issue('leaf');
      const ca = { cert_file: leaf.certFile, key_file: leaf.keyFile, trust_domain: 'example.org' };
      expect(problemsOf(() => loadConfig({ overrides: { agents: { ca } } })).join())
        .to.include('agents.ca.cert_file: ')
        .and.include('is not a CA certificate');
      const good = { cert_file: pki.ca.certFile, key_file: pki.ca.keyFile, trust_domain: 'Example.org/x' };
      expect(problemsOf(() => loadConfig({ overrides: { agents: { ca: good } } })).join()).to.include(
        'agents.ca.trust_domain',
      );
      expect(
        loadConfig({ overrides: { agents: { ca: { ...good, trust_domain: 'example.org' } } } }).agents.ca
          .trust_domain,
      ).to.equal('example.org');
    } finally {
      pki.cleanup();
    }
  });

  it('accepts byte sizes with units', () => {
    expect(
      loadConfig({ overrides: { opamp: { max_message_bytes: '4MiB' } } }).opamp.max_message_bytes,
    ).to.equal(4 * 1024 * 1024);
  });
});

describe('Go-style durations', () => {
  const cases: [string, number, string][] = [
    ['500ms', 500, '500ms'],
    ['30s', 30_000, '30s'],
    ['1m30s', 90_000, '1m30s'],
    ['168h', 604_800_000, '168h0m0s'],
    ['1.5s', 1500, '1.5s'],
    ['0', 0, '0s'],
  ];
  for (const [text, ms, formatted] of cases) {
    it(`reads ${text} as ${ms} ms and writes it as ${formatted}`, () => {
      expect(parseDuration(text)).to.equal(ms);
      expect(formatDuration(ms)).to.equal(formatted);
    });
  }
  for (const bad of ['', '30', 's', '1d', '-1s', '30 s']) {
    it(`rejects ${JSON.stringify(bad)}`, () => expect(parseDuration(bad)).to.equal(undefined));
  }
});
