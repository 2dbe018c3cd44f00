import { expect } from 'chai';
import type pg from 'pg';
import { agentMessage, description, newUid, WsAgent } from '../support/agentClient.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { eventually } from './eventually.ts';
import { startReplica, type Replica } from './replica.ts';

const agentCount = 20;
const config = (db: TestDatabase) => ({ database: db.config, fleet: { heartbeat_interval: '30s' } });
const ReportFullState = 1;

describe('kill -9 of a replica under load (rule 8)', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let sql: pg.Client;
  let replica: Replica | undefined;
  const open: WsAgent[] = [];

  before(async () => {
    db = await createTestDatabase();
    sql = await db.client();
  });
  after(async () => {
    await Promise.all(open.map((a) => a.close()));
    await replica?.stop();
    await sql.end();
    await db.drop();
  });

  const versions = async (uids: readonly string[]) => {
    const r = await sql.query<{ instance_uid: string; v: string }>(
      `SELECT instance_uid, identifying->>'version' AS v FROM agents WHERE instance_uid = ANY($1)`,
      [uids],
    );
    return new Map(r.rows.map((row) => [row.instance_uid, row.v]));
  };

  async function connectAll(target: Replica, uids: readonly string[], version: string | undefined) {
    const agents = await Promise.all(uids.map(() => WsAgent.open(target.opamp)));
    open.push(...agents);
    const replies = await Promise.all(
      agents.map((agent, i) =>
        agent.send(
          agentMessage(uids[i]!, version === undefined ? {} : { agentDescription: description({ version }) }),
        ),
      ),
    );
    return { agents, replies };
  }

  it('loses at most the last flush window, and the tables converge when agents reconnect', async () => {
    const uids = Array.from({ length: agentCount }, () => newUid());
    replica = await startReplica('crash-1', config(db));
    const { agents } = await connectAll(replica, uids, 'v1');
    await eventually(
      async () =>
        [...(await versions(uids)).values()].every((v) => v === 'v1') &&
        (await versions(uids)).size === agentCount,
      'v1 flushed',
    );

    // The last window: every agent reports v2, then the process dies before or during its flush.
    await Promise.all(
      agents.map((agent, i) =>
        agent.send(agentMessage(uids[i]!, { agentDescription: description({ version: 'v2' }) })),
      ),
    );
    await replica.kill();
    replica = undefined;
    await Promise.all(agents.map((a) => a.close()));

    // Everything flushed before the last window survived; the last window is v1 or v2 per agent.
    const afterCrash = await versions(uids);
    expect(afterCrash.size).to.equal(agentCount);
    for (const v of afterCrash.values()) expect(v).to.be.oneOf(['v1', 'v2']);

    // Restart; the agents reconnect with a bare message and are asked for their full state.
    replica = await startReplica('crash-2', config(db));
    const again = await connectAll(replica, uids, undefined);
    for (const reply of again.replies)
      expect(Number(reply.flags) & ReportFullState).to.equal(ReportFullState);
    await Promise.all(
      again.agents.map((agent, i) =>
        agent.send(agentMessage(uids[i]!, { agentDescription: description({ version: 'v2' }) })),
      ),
    );
    await eventually(async () => {
      const now = await versions(uids);
      return now.size === agentCount && [...now.values()].every((v) => v === 'v2');
    }, 'the tables to converge on v2');
  });
});
