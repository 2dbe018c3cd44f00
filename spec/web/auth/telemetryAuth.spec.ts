import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { httpsRequest, type ClientTls } from '../../io/tls/httpsClient.ts';
import { createPki, type Issued, type TestPki } from '../../io/tls/testPki.ts';
import { startApp } from '../../support/startApp.ts';

const td = 'spiffe://example.org';
const protectedPaths = ['/metrics', '/metrics/fleet', '/debug/pprof/'];

describe('telemetry listener under mTLS (telemetry_tls.client_ca_file)', () => {
  let pki: TestPki;
  let stranger: TestPki;
  let app: App;
  let scraper: Issued;
  let unmapped: Issued;
  let foreign: Issued;
  const as = (c?: Issued): ClientTls =>
    c ? { ca: pki.ca.cert, cert: c.cert, key: c.key } : { ca: pki.ca.cert };
  const get = (path: string, c?: Issued) => httpsRequest(`${app.urls.telemetry}${path}`, as(c));

  before(async () => {
    pki = createPki();
    stranger = createPki('Stranger CA');
    const server = pki.server();
    scraper = pki.issue('prometheus', { sans: [`URI:${td}/monitoring/prometheus`] });
    unmapped = pki.issue('unmapped', { sans: [`URI:${td}/elsewhere`] });
    foreign = stranger.issue('foreign', { sans: [`URI:${td}/monitoring/prometheus`] });
    app = await startApp({
      config: {
        telemetry_tls: {
          cert_file: server.certFile,
          key_file: server.keyFile,
          client_ca_file: pki.ca.certFile,
        },
        auth: { role_mapping: [{ match: 'prefix', spiffe_id: `${td}/monitoring`, role: 'viewer' }] },
        debug: { pprof_enabled: true },
      },
    });
  });
  after(async () => {
    await app?.stop();
    pki.cleanup();
    stranger.cleanup();
  });

  it('keeps /healthz and /readyz open to a client without a certificate', async () => {
    const health = await get('/healthz');
    expect(health.status).to.equal(200);
    expect(health.text).to.equal('ok');
    expect((await get('/readyz')).status).to.equal(200);
  });

  it('keeps the probes open to a client with an untrusted certificate', async () => {
    expect((await get('/healthz', foreign)).status).to.equal(200);
    expect((await get('/readyz', unmapped)).status).to.equal(200);
  });

  it('answers 403 on metrics and profiling without a certificate', async () => {
    for (const path of protectedPaths) expect((await get(path)).status, path).to.equal(403);
  });

  it('answers 403 on metrics to an unknown CA and to an unmapped identity', async () => {
    for (const path of protectedPaths) {
      expect((await get(path, foreign)).status, path).to.equal(403);
      expect((await get(path, unmapped)).status, path).to.equal(403);
    }
  });

  it('serves metrics and profiling to a mapped identity', async () => {
    const metrics = await get('/metrics', scraper);
    expect(metrics.status).to.equal(200);
    expect(metrics.text).to.include('svc_build_info');
    expect((await get('/metrics/fleet', scraper)).status).to.equal(200);
    expect((await get('/debug/pprof/', scraper)).status).to.equal(200);
  });
});
