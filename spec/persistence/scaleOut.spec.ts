import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import type pg from 'pg';
import { migrationsDirectory } from '../../src/persistence/database/migrate.ts';
import { agentMessage, description, newUid, WsAgent } from '../support/agentClient.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { eventually } from './eventually.ts';
import { startReplica, type Replica } from './replica.ts';

// Short heartbeats so evictions happen within seconds: disconnect after 1.5 s, evict after 3 s.
const fleet = { heartbeat_interval: '1s', stale_missed_heartbeats: 3 };

const getAgent = async (replica: Replica, uid: string) => {
  const res = await fetch(`${replica.ui}/api/agents/${uid}`);
  return {
    status: res.status,
    body: res.status === 200 ? ((await res.json()) as Record<string, unknown>) : undefined,
  };
};

interface Listed {
  instance_uid: string;
  connected: boolean;
}

/** The agents a replica lists (GET /api/agents), optionally filtered. */
const listed = async (replica: Replica, query = '') => {
  const res = await fetch(`${replica.ui}/api/agents?limit=1000${query}`);
  const body = (await res.json()) as { agents: Listed[]; partial: boolean };
  expect(body.partial, `${replica.name} partial`).to.equal(false);
  return body.agents;
};

/** Keeps an agent alive on one replica: a message every 300 ms. */
function heartbeat(agent: WsAgent, uid: string): () => void {
  const timer = setInterval(() => void agent.send(agentMessage(uid)).catch(() => undefined), 300);
  return () => clearInterval(timer);
}

describe('three replicas on one database (scale-out)', function () {
  this.timeout(90_000);
  let db: TestDatabase;
  let sql: pg.Client;
  let replicas: Replica[] = [];

  before(async () => {
    db = await createTestDatabase();
    sql = await db.client();
    // Started at the same moment: migrations serialise on the advisory lock.
    replicas = await Promise.all(
      ['a', 'b', 'c'].map((name) => startReplica(name, { database: db.config, fleet })),
    );
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await sql.end();
    await db.drop();
  });

  it('migrates once when every replica starts at the same moment', async () => {
    const applied = await sql.query('SELECT index FROM atdatabases_migrations_applied ORDER BY index');
    const files = readdirSync(migrationsDirectory).filter((f) => f.endsWith('.sql'));
    // The index is the file's number; numbers may have gaps.
    const numbers = files.map((f) => Number(f.slice(0, f.indexOf('-')))).sort((a, b) => a - b);
    expect(applied.rows.map((r: { index: number }) => r.index)).to.deep.equal(numbers);
  });

  it('answers for an agent connected to A from B and C within one flush', async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    const uid = newUid();
    const agent = await WsAgent.open(a.opamp);
    const stop = heartbeat(agent, uid);
    try {
      await agent.send(agentMessage(uid, { agentDescription: description({ 'service.name': 'edge' }) }));
      for (const sibling of [b, c]) {
        const found = await eventually(
          async () => {
            const r = await getAgent(sibling, uid);
            return r.status === 200 && r.body;
          },
          `replica ${sibling.name} to answer`,
          { timeoutMs: 12_000 },
        );
        expect(found.identifying_attributes).to.deep.equal({ 'service.name': 'edge' });
        // Lists read the sibling's mirror, which catches up within about a second of the flush.
        await eventually(
          async () => (await listed(sibling, '&service.name=edge')).some((x) => x.instance_uid === uid),
          `replica ${sibling.name} to list it`,
          { timeoutMs: 2000 },
        );
      }
    } finally {
      stop();
      await agent.close();
    }
  });

  it('keeps an agent that moved from A to B visible after A evicts its stale copy', async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    const uid = newUid();
    const first = await WsAgent.open(a.opamp);
    const stopFirst = heartbeat(first, uid);
    await first.send(agentMessage(uid, { agentDescription: description({ 'service.name': 'mover' }) }));
    await eventually(async () => (await getAgent(b, uid)).status === 200, 'the first flush on A', {
      timeoutMs: 12_000,
    });
    stopFirst();
    await first.close();
    const second = await WsAgent.open(b.opamp);
    const stop = heartbeat(second, uid);
    try {
      await second.send(agentMessage(uid, { agentDescription: description({ 'service.name': 'mover' }) }));
      // A evicts its copy after 3 s of silence; the counter moves once the soft delete was written.
      await eventually(
        async () => {
          const text = await (await fetch(`${a.telemetry}/metrics/fleet`)).text();
          return /^svc_agents_evicted_total [1-9]/m.test(text);
        },
        'A to evict and soft-delete its copy',
        { timeoutMs: 20_000 },
      );
      const row = await sql.query('SELECT evicted_at FROM agents WHERE instance_uid = $1', [uid]);
      expect(row.rows).to.deep.equal([{ evicted_at: null }]);
      for (const replica of [a, b, c])
        expect((await getAgent(replica, uid)).status, replica.name).to.equal(200);
    } finally {
      stop();
      await second.close();
    }
  });

  it('never lists an agent it has evicted, even before the soft delete reaches the table', async () => {
    const [a, b] = replicas as [Replica, Replica, Replica];
    const uid = newUid();
    const agent = await WsAgent.open(a.opamp);
    const stop = heartbeat(agent, uid);
    await agent.send(agentMessage(uid, { agentDescription: description({ 'service.name': 'leaver' }) }));
    await eventually(async () => (await listed(b)).some((x) => x.instance_uid === uid), 'the first flush');
    stop();
    await agent.close();
    const evictedAt = async () =>
      (
        await sql.query<{ e: Date | null }>('SELECT evicted_at AS e FROM agents WHERE instance_uid = $1', [
          uid,
        ])
      ).rows[0]?.e ?? null;
    // A evicts it after 3 s of silence: its per-agent series goes with the registry entry.
    await eventually(
      async () => !(await (await fetch(`${a.telemetry}/metrics/fleet`)).text()).includes(uid),
      'A to evict the agent',
    );
    // Until the next flush soft-deletes the row, every store read still returns it live.
    let listsWhileLive = 0;
    for (;;) {
      const live = (await evictedAt()) === null;
      expect((await listed(a)).map((x) => x.instance_uid)).to.not.include(uid);
      expect((await fetch(`${a.ui}/api/agents/${uid}`)).status).to.equal(404);
      if (!live) break;
      listsWhileLive++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(listsWhileLive, 'lists answered while the row was still live').to.be.greaterThan(0);
    await eventually(
      async () => !(await listed(b)).some((x) => x.instance_uid === uid),
      'B to drop the soft-deleted agent',
      { timeoutMs: 3000 },
    );
  });

  it("shows a sibling's flush in its list within about a second", async () => {
    const [a, b] = replicas as [Replica, Replica, Replica];
    const uid = newUid();
    // B has listed recently, so anything it would cache is warm and older than the flush.
    await listed(b);
    const agent = await WsAgent.open(a.opamp);
    const stop = heartbeat(agent, uid);
    try {
      await agent.send(agentMessage(uid, { agentDescription: description({ 'service.name': 'fresh' }) }));
      await eventually(
        async () => (await sql.query('SELECT 1 FROM agents WHERE instance_uid = $1', [uid])).rowCount === 1,
        "A's flush",
        { everyMs: 20 },
      );
      // One list, a second after the flush (a cache refreshed behind requests would still show
      // the read it made before).
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect((await listed(b, '&service.name=fresh')).map((x) => x.instance_uid)).to.include(uid);
    } finally {
      stop();
      await agent.close();
    }
  });
});

describe('a disconnect reaches the siblings (two replicas, 45 s disconnect threshold)', function () {
  this.timeout(90_000);
  let db: TestDatabase;
  let sql: pg.Client;
  let replicas: Replica[] = [];

  before(async () => {
    db = await createTestDatabase();
    sql = await db.client();
    const fleet = { heartbeat_interval: '30s' };
    replicas = await Promise.all(
      ['d1', 'd2'].map((name) => startReplica(name, { database: db.config, fleet })),
    );
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await sql.end();
    await db.drop();
  });

  it('shows B an agent disconnected within one flush after its socket to A dropped, though A had flushed its last report', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const uid = newUid();
    const agent = await WsAgent.open(a.opamp);
    // One report and no more messages: the stored row already holds the agent's last last_seen.
    await agent.send(agentMessage(uid, { agentDescription: description({ 'service.name': 'dropper' }) }));
    const connectedOnB = async (want: boolean) =>
      (await listed(b)).find((x) => x.instance_uid === uid)?.connected === want;
    await eventually(() => connectedOnB(true), 'B to list the agent connected');
    const row = async () =>
      (
        await sql.query<{ updated_at: Date; connected: boolean }>(
          `SELECT a.updated_at, s.connected FROM agents a JOIN agent_session s USING (instance_uid)
           WHERE instance_uid = $1`,
          [uid],
        )
      ).rows[0];
    const before = await row();
    await agent.close();
    await eventually(() => connectedOnB(false), 'B to list the agent disconnected', { timeoutMs: 12_000 });
    const after = await row();
    expect(after?.connected).to.equal(false);
    // Rule 14: the disconnect moved neither last_seen nor the agent row's guard.
    expect(after?.updated_at.getTime()).to.equal(before?.updated_at.getTime());
  });
});
