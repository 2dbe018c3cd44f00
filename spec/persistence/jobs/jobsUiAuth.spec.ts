import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { httpsRequest } from '../../io/tls/httpsClient.ts';
import { createPki, type Issued, type TestPki } from '../../io/tls/testPki.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';

describe('job-queue UI behind the UI listener authentication (rule 22)', function () {
  this.timeout(60_000);
  let pki: TestPki;
  let db: TestDatabase;
  let app: App;
  let viewer: Issued;
  let unmapped: Issued;

  before(async () => {
    pki = createPki();
    const server = pki.server();
    viewer = pki.issue('viewer', { sans: ['URI:spiffe://example.org/ui/viewer'] });
    unmapped = pki.issue('unmapped', { sans: ['URI:spiffe://example.org/elsewhere'] });
    db = await createTestDatabase();
    app = await startApp({
      config: {
        database: db.config,
        ui_tls: { cert_file: server.certFile, key_file: server.keyFile, client_ca_file: pki.ca.certFile },
        auth: {
          role_mapping: [{ match: 'exact', spiffe_id: 'spiffe://example.org/ui/viewer', role: 'viewer' }],
        },
      },
    });
  });
  after(async () => {
    await app.stop();
    await db.drop();
    pki.cleanup();
  });

  const get = (who?: Issued) =>
    httpsRequest(
      `${app.urls.ui}/jobs-ui/`,
      who === undefined ? { ca: pki.ca.cert } : { ca: pki.ca.cert, cert: who.cert, key: who.key },
    );

  it('answers 403 without a certificate or with an unmapped identity', async () => {
    expect((await get()).status).to.equal(403);
    expect((await get(unmapped)).status).to.equal(403);
  });

  it('serves the dashboard to a mapped identity, with the purge runs and the job steps', async () => {
    const page = await get(viewer);
    expect(page.status).to.equal(200);
    expect(page.text).to.match(/<html/i);
    const queues = await httpsRequest(`${app.urls.ui}/jobs-ui/queues`, {
      ca: pki.ca.cert,
      cert: viewer.cert,
      key: viewer.key,
    });
    expect(queues.text).to.include('purge-soft-deleted-agents').and.include('job-steps');
  });
});
