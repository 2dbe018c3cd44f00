// The UI listener's request guard against the running service and a real PostgreSQL, as an
// attacker and as a curl user would send requests: cross-site writes, forms posting JSON, DNS
// rebinding, closed reads, and the counter that shows each refusal.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { apiToken } from '../../support/apiTokens.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';
import { scrape } from '../../telemetry/scrape.ts';
import { raw, type RawResponse } from './rawHttp.ts';

const errorIn = (r: RawResponse): string => (JSON.parse(r.text) as { error: string }).error;

const adminToken = 'guard-admin-token';
const viewerToken = 'guard-viewer-token';
const tokens = [apiToken('ci-admin', adminToken, 'admin'), apiToken('dashboard', viewerToken, 'viewer')];
const config = JSON.stringify({ name: 'everyone', selector: 'service.name=~".*"', body: 'a: 1\n' });
const evil = { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' };

describe('the UI listener request guard', () => {
  let db: TestDatabase;
  let app: App;
  const url = (path: string) => `${app.urls.ui}${path}`;
  const refused = async (reason: string) => {
    const metrics = await scrape(`${app.urls.telemetry}/metrics`);
    return metrics.value('svc_ui_requests_refused_total', { reason }) ?? 0;
  };
  const configNames = async () => {
    const r = await raw(url('/api/configs'), { headers: { Authorization: `Bearer ${adminToken}` } });
    return (JSON.parse(r.text) as { configs: { name: string }[] }).configs.map((c) => c.name);
  };

  before(async () => {
    db = await createTestDatabase();
    app = await startApp({
      config: {
        database: db.config,
        auth: { api_tokens: tokens, allow_unauthenticated_writes: true },
        ui: {
          allowed_hosts: ['127.0.0.1', 'fleet.example:8080'],
          allowed_origins: ['https://console.example'],
        },
      },
    });
  });
  after(async () => {
    await app?.stop();
    await db?.drop();
  });

  it('refuses a text/plain form posting JSON with 415 even when anonymous writes are allowed', async () => {
    const before = await refused('content_type');
    const r = await raw(url('/api/configs'), {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: config,
    });
    expect(r.status, r.text).to.equal(415);
    expect(errorIn(r)).to.match(/application\/json/);
    expect(await refused('content_type')).to.equal(before + 1);
    expect(await configNames()).to.deep.equal([]);
  });

  it('refuses a write another site started (Sec-Fetch-Site, else Origin) with 403', async () => {
    const before = await refused('cross_site');
    const json = { 'Content-Type': 'application/json' };
    const bySite = await raw(url('/api/configs'), {
      method: 'POST',
      headers: { ...json, ...evil },
      body: config,
    });
    expect(bySite.status, bySite.text).to.equal(403);
    expect(errorIn(bySite)).to.match(/Sec-Fetch-Site: cross-site/);
    const byOrigin = await raw(url('/api/jobs/00000000-0000-0000-0000-000000000000/cancel'), {
      method: 'POST',
      headers: { Origin: 'https://evil.example', Authorization: `Bearer ${adminToken}` },
    });
    expect(byOrigin.status, byOrigin.text).to.equal(403);
    const page = await raw(url('/jobs/x/cancel'), { method: 'POST', headers: evil });
    expect(page.status).to.equal(403);
    expect(page.text).to.match(/^forbidden: cross-site write refused/);
    expect(await refused('cross_site')).to.equal(before + 3);
    expect(await configNames()).to.deep.equal([]);
  });

  it('accepts the same write from curl with a token and no browser headers', async () => {
    const r = await raw(url('/api/configs'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${adminToken}` },
      body: config,
    });
    expect(r.status, r.text).to.equal(201);
    expect(await configNames()).to.deep.equal(['everyone']);
  });

  it('accepts a write from a page of this origin and from ui.allowed_origins', async () => {
    const body = JSON.stringify({ filter: 'env=prod', action: 'restart', submitted_by: 'spec' });
    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${adminToken}` };
    const own = await raw(url('/api/jobs'), {
      method: 'POST',
      headers: { ...headers, Origin: app.urls.ui, 'Sec-Fetch-Site': 'same-origin' },
      body,
    });
    expect(own.status, own.text).to.equal(201);
    const oldBrowser = await raw(url('/api/jobs'), {
      method: 'POST',
      headers: { ...headers, Origin: app.urls.ui },
      body,
    });
    expect(oldBrowser.status, oldBrowser.text).to.equal(201);
    const console = await raw(url('/api/jobs'), {
      method: 'POST',
      headers: { ...headers, Origin: 'https://console.example', 'Sec-Fetch-Site': 'cross-site' },
      body,
    });
    expect(console.status, console.text).to.equal(201);
  });

  it('answers only the hosts in ui.allowed_hosts (DNS rebinding)', async () => {
    const before = await refused('host');
    const rebound = await raw(url('/api/agents'), { headers: { Host: 'evil.example:8080' } });
    expect(rebound.status).to.equal(403);
    expect(errorIn(rebound)).to.match(/Host "evil.example:8080" is not in ui.allowed_hosts/);
    const page = await raw(url('/'), { headers: { Host: 'evil.example' } });
    expect(page.status).to.equal(403);
    expect((await raw(url('/api/agents'), { headers: { Host: 'fleet.example:8080' } })).status).to.equal(200);
    expect((await raw(url('/api/agents'), { headers: { Host: 'FLEET.example:9999' } })).status).to.equal(403);
    expect((await raw(url('/api/agents'))).status).to.equal(200);
    expect(await refused('host')).to.equal(before + 3);
  });

  it('refuses a JSON body holding a NUL character with 400 (the database takes none)', async () => {
    const r = await raw(url('/api/jobs'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ filter: 'env=prod', action: 'restart', submitted_by: 'a\u0000b' }),
    });
    expect(r.status, r.text).to.equal(400);
    expect(errorIn(r)).to.match(/NUL character/);
  });

  it('refuses an action_config nested 10,000 levels deep with 400, not a stack overflow', async () => {
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const before = await refused('body_too_deep');
    const r = await raw(url('/api/jobs'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${adminToken}` },
      body: `{"filter":"env=prod","action":"restart","submitted_by":"spec","action_config":${deep}}`,
    });
    expect(r.status, r.text).to.equal(400);
    expect(errorIn(r)).to.match(/deeper than 64 levels/);
    expect(await refused('body_too_deep')).to.equal(before + 1);
  });
});

describe('closed reads (auth.anonymous_reads: false)', () => {
  let app: App;
  const url = (path: string) => `${app.urls.ui}${path}`;
  before(async () => {
    app = await startApp({ config: { auth: { api_tokens: tokens, anonymous_reads: false } } });
  });
  after(async () => {
    await app?.stop();
  });

  it('answers 401 to every anonymous read, API and pages, and counts it', async () => {
    for (const path of ['/api/agents', '/api/status', '/', '/status', '/static/app.css', '/configs']) {
      const r = await raw(url(path));
      expect(r.status, path).to.equal(401);
      expect(r.headers['www-authenticate'], path).to.match(/^Bearer/);
    }
    const metrics = await scrape(`${app.urls.telemetry}/metrics`);
    expect(metrics.value('svc_ui_requests_refused_total', { reason: 'reads_closed' })).to.equal(6);
  });

  it('serves a viewer token', async () => {
    const r = await raw(url('/api/agents'), { headers: { Authorization: `Bearer ${viewerToken}` } });
    expect(r.status).to.equal(200);
  });
});
