import { expect } from 'chai';
import { silentLogger } from '../../../src/io/logger.ts';
import {
  connectionSettings,
  type DatabaseConfig,
} from '../../../src/persistence/database/connectionSettings.ts';
import { createPools } from '../../../src/persistence/database/pools.ts';
import { createPki, type TestPki } from '../../io/tls/testPki.ts';
import {
  createTestDatabase,
  startPostgresServer,
  type PostgresServer,
  type TestDatabase,
} from '../../support/postgres.ts';
import { startReplica } from '../replica.ts';

describe('database.sslmode against a PostgreSQL server with TLS', function () {
  this.timeout(60_000);
  let pki: TestPki;
  let server: PostgresServer;
  let db: TestDatabase;

  before(async () => {
    pki = createPki('Database CA');
    // The certificate names another host: verify-full must refuse it, verify-ca accept it.
    server = await startPostgresServer({
      tls: pki.issue('db', { sans: ['DNS:db.elsewhere.example'], cn: 'db.elsewhere.example' }),
    });
    db = await createTestDatabase(server);
  });
  after(async () => {
    await db.drop();
    await server.dispose();
    pki.cleanup();
  });

  const config = (sslmode: DatabaseConfig['sslmode']): DatabaseConfig => ({
    ...db.config,
    sslmode,
    pool_max: 2,
  });

  async function encrypted(sslmode: DatabaseConfig['sslmode']): Promise<boolean> {
    const pools = createPools(connectionSettings(config(sslmode)), {
      poolMax: 2,
      readTimeoutMs: 5000,
      logger: silentLogger(),
    });
    try {
      const r = await pools.read.query<{ ssl: boolean }>(
        'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()',
      );
      return r.rows[0]?.ssl ?? false;
    } finally {
      await pools.end();
    }
  }

  it('disable connects in plain text', async () => {
    expect(await encrypted('disable')).to.equal(false);
  });

  it('require encrypts without verifying the certificate', async () => {
    expect(await encrypted('require')).to.equal(true);
  });

  it('verify-ca and verify-full refuse a certificate from an untrusted CA', async () => {
    for (const mode of ['verify-ca', 'verify-full'] as const) {
      let error: unknown;
      await encrypted(mode).catch((e: unknown) => (error = e));
      expect(String(error), mode).to.match(/certificate/i);
    }
  });

  it('with the CA trusted, verify-ca accepts and verify-full refuses a certificate for another host name', async () => {
    const env = { NODE_EXTRA_CA_CERTS: pki.ca.certFile };
    const ca = await startReplica('verify-ca', { database: config('verify-ca') }, env);
    await ca.stop();
    let refused: unknown;
    await startReplica('verify-full', { database: config('verify-full') }, env).catch(
      (e: unknown) => (refused = e),
    );
    expect(String(refused)).to.match(/exited before it was ready[\s\S]*(altnames|Hostname|host name)/i);
  });
});
