import { expect } from 'chai';
import { silentLogger } from '../../../src/io/logger.ts';
import { connectionSettings } from '../../../src/persistence/database/connectionSettings.ts';
import { createNotifications, notifySql } from '../../../src/persistence/database/notifications.ts';
import {
  createTestDatabase,
  startPostgresServer,
  type PostgresServer,
  type TestDatabase,
} from '../../support/postgres.ts';
import { eventually } from '../eventually.ts';

const settingsOf = (db: TestDatabase) => connectionSettings({ ...db.config, pool_max: 2 });

describe('LISTEN/NOTIFY on a dedicated connection', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  it('delivers a NOTIFY sent by another session to the handlers of its channel, at commit', async () => {
    const notifications = createNotifications(settingsOf(db), { logger: silentLogger() });
    const seen: string[] = [];
    notifications.on('svc_test', (payload) => seen.push(payload));
    notifications.on('svc_other', () => seen.push('wrong channel'));
    const markers: string[] = [];
    notifications.on('svc_marker', (payload) => markers.push(payload));
    await notifications.start();
    const client = await db.client();
    const other = await db.client();
    try {
      await client.query('BEGIN');
      const sql = notifySql('svc_test', 'hello');
      await client.query(sql.text, sql.values);
      // A marker committed by another session after the NOTIFY was issued: PostgreSQL delivers in
      // commit order, so once the marker is here an uncommitted NOTIFY would have arrived before it.
      const marker = notifySql('svc_marker', 'after');
      await other.query(marker.text, marker.values);
      await eventually(() => Promise.resolve(markers.length > 0), 'the marker');
      expect(seen).to.deep.equal([]);
      await client.query('COMMIT');
      await eventually(() => Promise.resolve(seen.length > 0), 'the notification');
      expect(seen).to.deep.equal(['hello']);
    } finally {
      await client.end();
      await other.end();
      await notifications.stop();
    }
  });

  it('listens to a channel subscribed after start', async () => {
    const notifications = createNotifications(settingsOf(db), { logger: silentLogger() });
    await notifications.start();
    const seen: string[] = [];
    notifications.on('svc_late', (payload) => seen.push(payload));
    const client = await db.client();
    try {
      await eventually(async () => {
        await client.query("SELECT pg_notify('svc_late', 'x')");
        return seen.includes('x');
      }, 'a notification on the late channel');
    } finally {
      await client.end();
      await notifications.stop();
    }
  });

  describe('when PostgreSQL goes away', function () {
    this.timeout(60_000);
    let server: PostgresServer;
    before(async () => {
      server = await startPostgresServer();
    });
    after(async () => {
      await server.dispose();
    });

    it('reconnects, listens again and says so, so users re-read what they missed', async () => {
      const own = await createTestDatabase(server);
      const notifications = createNotifications(settingsOf(own), { logger: silentLogger(), retryMs: 200 });
      let connections = 0;
      const seen: string[] = [];
      notifications.onConnected(() => connections++);
      notifications.on('svc_test', (payload) => seen.push(payload));
      await notifications.start();
      expect(connections).to.equal(1);
      await server.stop();
      await eventually(() => Promise.resolve(!notifications.connected), 'the connection to drop');
      await server.start();
      await eventually(() => Promise.resolve(connections === 2), 'the reconnection');
      const client = await own.client();
      try {
        await client.query("SELECT pg_notify('svc_test', 'after')");
        await eventually(() => Promise.resolve(seen.length > 0), 'the notification after reconnecting');
        expect(seen).to.deep.equal(['after']);
      } finally {
        await client.end();
        await notifications.stop();
        await own.drop();
      }
    });
  });
});
