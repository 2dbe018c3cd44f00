import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { httpsRequest, type ClientTls } from '../../io/tls/httpsClient.ts';
import { createPki, type Issued, type TestPki } from '../../io/tls/testPki.ts';
import { startApp } from '../../support/startApp.ts';

const td = 'spiffe://example.org';
const roleMapping = [
  { match: 'prefix', spiffe_id: `${td}/ops`, role: 'viewer' },
  { match: 'exact', spiffe_id: `${td}/ops/alice`, role: 'admin' },
  { match: 'exact', spiffe_id: `${td}/ui/viewer`, role: 'viewer' },
];
const readPaths = [
  '/',
  '/api/status',
  '/api/agents',
  '/partials/agents',
  '/status',
  '/static/app.css',
  '/jobs-ui/',
];
const jobBody = JSON.stringify({ filter: '', action: 'restart', submitted_by: 'spec' });

describe('UI listener under mTLS (ui_tls.client_ca_file)', () => {
  let pki: TestPki;
  let stranger: TestPki;
  let app: App;
  const client: Record<string, Issued> = {};
  const as = (name: string | undefined): ClientTls =>
    name === undefined
      ? { ca: pki.ca.cert }
      : { ca: pki.ca.cert, cert: client[name]!.cert, key: client[name]!.key };
  const get = (path: string, who?: string) => httpsRequest(`${app.urls.ui}${path}`, as(who));
  const postJob = (who?: string) =>
    httpsRequest(`${app.urls.ui}/api/jobs`, as(who), {
      method: 'POST',
      body: jobBody,
      headers: { 'Content-Type': 'application/json' },
    });

  before(async () => {
    pki = createPki();
    stranger = createPki('Stranger CA');
    const server = pki.server();
    client.viewer = pki.issue('viewer', { sans: [`URI:${td}/ui/viewer`] });
    client.alice = pki.issue('alice', { sans: [`URI:${td}/ops/alice`] });
    client.bob = pki.issue('bob', { sans: [`URI:${td}/ops/bob`] });
    client.unmapped = pki.issue('unmapped', { sans: [`URI:${td}/elsewhere/x`] });
    client.noSan = pki.issue('nosan');
    client.dnsOnly = pki.issue('dnsonly', { sans: ['DNS:client.example.org'] });
    client.twoSans = pki.issue('twosans', { sans: [`URI:${td}/ops/alice`, `URI:${td}/ui/viewer`] });
    client.otherScheme = pki.issue('https', { sans: ['URI:https://example.org/ops/alice'] });
    client.foreign = stranger.issue('foreign', { sans: [`URI:${td}/ops/alice`] });
    app = await startApp({
      config: {
        ui_tls: { cert_file: server.certFile, key_file: server.keyFile, client_ca_file: pki.ca.certFile },
        auth: { role_mapping: roleMapping },
      },
    });
  });
  after(async () => {
    await app?.stop();
    pki.cleanup();
    stranger.cleanup();
  });

  it('serves HTTPS on the UI listener', () => {
    expect(app.urls.ui).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers 403 on every path to a client without a certificate', async () => {
    for (const path of readPaths) {
      const r = await get(path);
      expect(r.status, path).to.equal(403);
      expect(r.text, path).to.include('no client certificate');
    }
  });

  it('answers 403 to a certificate from an unknown CA, even with a mapped identity', async () => {
    const r = await get('/api/status', 'foreign');
    expect(r.status).to.equal(403);
    expect(r.text).to.include('not trusted');
  });

  it('answers 403 to a certificate without a SPIFFE URI SAN', async () => {
    for (const who of ['noSan', 'dnsOnly']) {
      const r = await get('/api/status', who);
      expect(r.status, who).to.equal(403);
      expect(r.text, who).to.include('no URI SAN');
    }
  });

  it('answers 403 to a certificate with two URI SANs, or a URI of another scheme', async () => {
    expect((await get('/api/status', 'twoSans')).text).to.include('several URI SANs');
    expect((await get('/api/status', 'twoSans')).status).to.equal(403);
    expect((await get('/api/status', 'otherScheme')).status).to.equal(403);
  });

  it('answers 403 to a valid identity that maps to no role when default_role is none', async () => {
    const r = await get('/api/status', 'unmapped');
    expect(r.status).to.equal(403);
    expect(r.text).to.include(`no role for ${td}/elsewhere/x`);
  });

  it('serves a mapped viewer on every read path', async () => {
    for (const path of readPaths) {
      const r = await get(path, 'viewer');
      expect(r.status, path).to.not.equal(403);
    }
    expect((await get('/api/status', 'viewer')).status).to.equal(200);
    expect((await get('/api/status', 'bob')).status).to.equal(200); // prefix entry
  });

  it('answers 403 to a viewer POST /api/jobs, and lets an admin through to the job endpoint', async () => {
    const viewer = await postJob('viewer');
    expect(viewer.status).to.equal(403);
    expect(JSON.parse(viewer.text)).to.deep.equal({
      error: `forbidden: ${td}/ui/viewer has role viewer; POST needs admin`,
    });
    // Without database.host the endpoint itself answers 503 (SPEC durability rule 1): past auth.
    const admin = await postJob('alice');
    expect(admin.status).to.not.equal(403);
    expect(admin.text).to.not.include('forbidden');
  });

  it('prefers an exact entry over an earlier prefix entry that also matches', async () => {
    // alice matches the prefix entry (viewer, listed first) and the exact entry (admin).
    expect((await postJob('alice')).status).to.not.equal(403);
    expect((await postJob('bob')).status).to.equal(403);
  });

  it('never lets a client without a certificate create a job', async () => {
    expect((await postJob()).status).to.equal(403);
  });
});

describe('UI listener role defaults and plain TLS', () => {
  let pki: TestPki;
  before(() => {
    pki = createPki();
  });
  after(() => pki.cleanup());

  it('gives auth.default_role to an unmapped identity', async () => {
    const server = pki.server();
    const unmapped = pki.issue('unmapped', { sans: [`URI:${td}/elsewhere/x`] });
    const app = await startApp({
      config: {
        ui_tls: { cert_file: server.certFile, key_file: server.keyFile, client_ca_file: pki.ca.certFile },
        auth: { role_mapping: roleMapping, default_role: 'viewer' },
      },
    });
    try {
      const tls = { ca: pki.ca.cert, cert: unmapped.cert, key: unmapped.key };
      expect((await httpsRequest(`${app.urls.ui}/api/status`, tls)).status).to.equal(200);
      const post = await httpsRequest(`${app.urls.ui}/api/jobs`, tls, {
        method: 'POST',
        body: jobBody,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(post.status).to.equal(403);
    } finally {
      await app.stop();
    }
  });

  it('serves everyone over TLS when no client CA is configured', async () => {
    const server = pki.server();
    const app = await startApp({
      config: { ui_tls: { cert_file: server.certFile, key_file: server.keyFile } },
    });
    try {
      expect((await httpsRequest(`${app.urls.ui}/api/status`, { ca: pki.ca.cert })).status).to.equal(200);
    } finally {
      await app.stop();
    }
  });
});
