// Siblings' revocations on a real PostgreSQL: heard through NOTIFY, own notices ignored, and a
// revocation made while the listening connection was down announced after it reconnects.

import { expect } from 'chai';
import pg from 'pg';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import { connectionSettings } from '../../../src/persistence/database/connectionSettings.ts';
import { applyServiceMigrations } from '../../../src/persistence/database/migrate.ts';
import { createNotifications, type Notifications } from '../../../src/persistence/database/notifications.ts';
import { createPgCredentialStore } from '../../../src/persistence/identity/pgCredentialStore.ts';
import { listenForRevocations } from '../../../src/persistence/identity/revocationListener.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { eventually } from '../eventually.ts';

const uid = (n: number) => `018f0000-0000-7000-8000-${String(n).padStart(12, '0')}` as InstanceUid;

describe('revocations of sibling replicas (PostgreSQL)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let pool: pg.Pool;
  let notifications: Notifications;
  let stop: () => void;
  const seen: FleetEvent[] = [];
  const here = () => createPgCredentialStore(pool, { replica: 'here' });
  const sibling = () => createPgCredentialStore(pool, { replica: 'sibling' });

  before(async () => {
    db = await createTestDatabase();
    const settings = connectionSettings({ ...db.config, pool_max: 2 });
    await applyServiceMigrations(settings);
    pool = new pg.Pool({ ...settings, max: 4 });
    pool.on('error', () => undefined);
    // A long pause before reconnecting leaves room for a revocation while nobody listens.
    notifications = createNotifications(settings, { logger: silentLogger(), retryMs: 3000 });
    stop = listenForRevocations({
      notifications,
      pool,
      publish: (event) => seen.push(event),
      now: () => Date.now(),
      replica: 'here',
      logger: silentLogger(),
    });
    await notifications.start();
  });
  after(async () => {
    stop();
    await notifications.stop();
    await pool.end();
    await db.drop();
  });

  it("announces a sibling's revocation with its actor, and not its own", async () => {
    await here().revoke(uid(1), 'alice', Date.now());
    await sibling().revoke(uid(2), 'bob', Date.now());
    await eventually(() => Promise.resolve(seen.length > 0), 'the sibling notice');
    await here().revoke(uid(3), 'carol', Date.now());
    await sibling().revoke(uid(4), 'dave', Date.now()); // notices arrive in commit order
    await eventually(() => Promise.resolve(seen.length > 1), 'the second sibling notice');
    expect(seen.map((e) => e.type === 'AgentCredentialRevoked' && e.data)).to.deep.equal([
      { uid: uid(2), revokedBy: 'bob' },
      { uid: uid(4), revokedBy: 'dave' },
    ]);
  });

  it('announces a revocation made while the listening connection was down, once it is back', async () => {
    seen.length = 0;
    const sql = await db.client();
    try {
      await sql.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'opamp-fleet-server listen' AND datname = current_database()",
      );
    } finally {
      await sql.end();
    }
    await eventually(() => Promise.resolve(!notifications.connected), 'the connection to drop', {
      everyMs: 10,
    });
    await sibling().revoke(uid(5), 'erin', Date.now());
    expect(notifications.connected).to.equal(false); // its NOTIFY reached nobody
    await eventually(
      () => Promise.resolve(seen.some((e) => e.type === 'AgentCredentialRevoked' && e.data.uid === uid(5))),
      'the catch-up',
    );
  });
});
