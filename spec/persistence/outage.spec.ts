import { expect } from 'chai';
import { agentMessage, description, newUid, WsAgent } from '../support/agentClient.ts';
import {
  createTestDatabase,
  startPostgresServer,
  type PostgresServer,
  type TestDatabase,
} from '../support/postgres.ts';
import { eventually } from './eventually.ts';
import { startReplica, type Replica } from './replica.ts';

const unknownUid = '00000000-0000-4000-8000-00000000dead';

async function list(replica: Replica): Promise<{ status: number; partial: boolean; uids: string[] }> {
  const res = await fetch(`${replica.ui}/api/agents`);
  const body = (await res.json()) as { partial: boolean; agents: { instance_uid: string }[] };
  return { status: res.status, partial: body.partial, uids: body.agents.map((a) => a.instance_uid) };
}

const fleetPage = async (replica: Replica) => (await fetch(`${replica.ui}/partials/agents`)).text();

describe('a database outage in the middle of a run', function () {
  this.timeout(120_000);
  let server: PostgresServer;
  let db: TestDatabase;
  let replica: Replica;
  const agents: WsAgent[] = [];
  const timers: NodeJS.Timeout[] = [];
  let down = false;

  before(async () => {
    // A server of its own: this spec stops and restarts it.
    server = await startPostgresServer();
    db = await createTestDatabase(server);
    replica = await startReplica('outage', { database: db.config, fleet: { heartbeat_interval: '10s' } });
  });
  after(async () => {
    for (const t of timers) clearInterval(t);
    await Promise.all(agents.map((a) => a.close()));
    await replica.stop();
    if (down) await server.start();
    await db.drop();
    await server.dispose();
  });

  async function connect(uid: string, service: string): Promise<WsAgent> {
    const agent = await WsAgent.open(replica.opamp);
    agents.push(agent);
    await agent.send(agentMessage(uid, { agentDescription: description({ 'service.name': service }) }));
    timers.push(setInterval(() => void agent.send(agentMessage(uid)).catch(() => undefined), 1000));
    return agent;
  }

  const identifying = async (uid: string) => {
    const client = await db.client();
    try {
      const r = await client.query<{ identifying: Record<string, string> }>(
        'SELECT identifying FROM agents WHERE instance_uid = $1',
        [uid],
      );
      return r.rows[0]?.identifying;
    } finally {
      await client.end();
    }
  };

  it('serves from the registry while PostgreSQL is down, then writes everything that changed once it is back', async () => {
    const x = newUid();
    const y = newUid();
    const agentX = await connect(x, 'before');
    await eventually(async () => (await identifying(x)) !== undefined, 'the first flush');

    await server.stop();
    down = true;

    // Lists are partial, the banner shows, the fallback is counted.
    const during = await eventually(async () => {
      const l = await list(replica);
      return l.partial && l;
    }, 'a partial list');
    expect(during.status).to.equal(200);
    expect(during.uids).to.include(x);
    expect(await fleetPage(replica)).to.include('Database unavailable');
    const metrics = await (await fetch(`${replica.telemetry}/metrics`)).text();
    expect(metrics).to.match(/^svc_list_agents_store_fallback_errors_total\{surface="api"\} [1-9]/m);
    expect(metrics).to.match(/^svc_list_agents_store_fallback_errors_total\{surface="ui"\} [1-9]/m);
    // Single misses: 500 on the API, a plain 404 in the UI.
    expect((await fetch(`${replica.ui}/api/agents/${unknownUid}`)).status).to.equal(500);
    expect((await fetch(`${replica.ui}/agents/${unknownUid}`)).status).to.equal(404);
    expect((await fetch(`${replica.ui}/partials/agents/${unknownUid}`)).status).to.equal(404);
    // A registry hit never needs the database (rule 2).
    expect((await fetch(`${replica.ui}/api/agents/${x}`)).status).to.equal(200);

    // Changes during the outage: a new agent, a new description.
    await connect(y, 'during');
    await agentX.send(agentMessage(x, { agentDescription: description({ 'service.name': 'changed' }) }));
    // Let at least one flush fail.
    await eventually(() => Promise.resolve(/flush failed/.test(replica.log())), 'a failed flush');

    await server.start();
    down = false;

    await eventually(
      async () => (await identifying(y))?.['service.name'] === 'during',
      'the new agent to reach the table',
    );
    await eventually(
      async () => (await identifying(x))?.['service.name'] === 'changed',
      'the changed agent to reach the table',
    );
    await eventually(async () => !(await list(replica)).partial, 'a complete list');
    await eventually(
      async () => !(await fleetPage(replica)).includes('Database unavailable'),
      'the banner to go',
    );
  });
});
