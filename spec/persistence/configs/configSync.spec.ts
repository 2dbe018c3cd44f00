// Config sync against a real PostgreSQL, its timer in virtual time: the configs in force are read at
// start, again when a svc_configs notification or a reconnection is heard, and every reconcileMs on
// the injected scheduler as a last resort (a notification lost meanwhile is caught up then).

import { expect } from 'chai';
import pg from 'pg';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import { createConfigSync, type ConfigSync } from '../../../src/persistence/configs/configSync.ts';
import { createPgConfigCatalog } from '../../../src/persistence/configs/pgConfigCatalog.ts';
import { connectionSettings } from '../../../src/persistence/database/connectionSettings.ts';
import { applyServiceMigrations } from '../../../src/persistence/database/migrate.ts';
import type { Notifications } from '../../../src/persistence/database/notifications.ts';
import { eventually } from '../eventually.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { VirtualClock } from '../../support/virtualTime.ts';

const document = (body: string) => ({ selector: 'env=prod', body, contentType: 'text/yaml', enabled: true });

/** Notifications the spec delivers by hand: what the database announced, or a reconnection. */
function handNotifications() {
  const heard: (() => void)[] = [];
  const notifications: Notifications = {
    on: (_channel, handler) => {
      heard.push(() => handler(''));
      return () => undefined;
    },
    onConnected: (handler) => {
      heard.push(handler);
      return () => undefined;
    },
    connected: true,
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
  };
  return { notifications, notify: () => heard[0]?.(), reconnect: () => heard[1]?.() };
}

describe('config sync (PostgreSQL, virtual time)', function () {
  this.timeout(30_000);
  let db: TestDatabase;
  let pool: pg.Pool;
  let clock: VirtualClock;
  let events: FleetEvent[];
  let sync: ConfigSync;
  let hand: ReturnType<typeof handNotifications>;
  const changed = () => events.filter((e) => e.type === 'RemoteConfigChanged').length;
  const write = (name: string, body: string) =>
    createPgConfigCatalog(pool, () => clock.now()).create(name, {
      document: document(body),
      draft: false,
      author: 'spec',
    });

  before(async () => {
    db = await createTestDatabase();
    const settings = connectionSettings({ ...db.config, pool_max: 2 });
    await applyServiceMigrations(settings);
    pool = new pg.Pool({ ...settings, max: 2 });
    pool.on('error', () => undefined);
  });
  after(async () => {
    await pool.end();
    await db.drop();
  });
  beforeEach(async () => {
    clock = new VirtualClock(1000);
    events = [];
    hand = handNotifications();
    sync = createConfigSync({
      pool,
      notifications: hand.notifications,
      publish: (e) => events.push(e),
      scheduler: clock.scheduler,
      logger: silentLogger(),
      reconcileMs: 10_000,
    });
    await sync.start();
  });
  afterEach(() => sync.stop());

  it('reconciles every reconcileMs on its scheduler, catching a change no notification announced', async () => {
    const before = changed();
    await write(`quiet-${before}`, 'a: 1');
    clock.advance(9999);
    expect(sync.lastReadAt(), 'no read before the interval').to.equal(1000);
    clock.advance(1);
    expect(sync.lastReadAt()).to.equal(11_000);
    await eventually(() => Promise.resolve(changed() === before + 1), 'the change to be read');
    expect(events.at(-1)).to.deep.include({ type: 'RemoteConfigChanged', at: 11_000 });
  });

  it('reads at once when a notification or a reconnection is heard', async () => {
    const before = changed();
    await write(`loud-${before}`, 'a: 1');
    clock.advance(500);
    hand.notify();
    expect(sync.lastReadAt()).to.equal(1500);
    await eventually(() => Promise.resolve(changed() === before + 1), 'the change to be read');
    clock.advance(500);
    hand.reconnect();
    expect(sync.lastReadAt()).to.equal(2000);
  });

  it('stops its timer on stop', async () => {
    await sync.stop();
    clock.advance(60_000);
    expect(sync.lastReadAt()).to.equal(1000);
  });
});
