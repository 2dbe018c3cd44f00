// A gateway with enrollment tokens and PostgreSQL (issue 33): its first reports of thousands of new
// agents, sent back to back on one socket, each need the id bound to the gateway's token. The
// gateway is never closed for being busy, every id ends bound to the token and every agent is
// answered, and PostgreSQL's own statistics show the ids were bound many to a transaction, not one
// each.

import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { frame } from '../../../src/io/opamp/framing.ts';
import { agentMessage, description, newUid, WsAgent } from '../../support/agentClient.ts';
import { eventually } from '../../persistence/eventually.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';

const gatewayToken = 'gateway-admission-7e57';
const agents = 2000;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const connect = encodeAgentToServer({
  customMessage: {
    capability: 'com.vendor.opamp-gateway',
    type: 'connect',
    data: Buffer.from(JSON.stringify({ request_uid: 'gw-1', remote_address: '10.0.0.1:4000', headers: {} })),
  },
});
const hex = (uid: string) => uid.replaceAll('-', '');

describe('a gateway relaying 2,000 new agents with tokens and PostgreSQL', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let app: App;

  before(async () => {
    db = await createTestDatabase();
    app = await startApp({
      config: {
        agents: { tokens: [{ name: 'gw', sha256: sha256(gatewayToken), gateway: true }] },
        database: db.config,
      },
    });
  });
  after(async () => {
    await app.stop();
    await db.drop();
  });

  it('binds and answers every agent without closing the gateway, many ids to a transaction', async () => {
    const client = await db.client();
    /** Committed transactions in this database, and rows inserted into agent_credentials, as PostgreSQL counts them. */
    const stats = async () => {
      const { rows } = await client.query<{ commits: string; inserted: string }>(
        `SELECT d.xact_commit AS commits, coalesce(t.n_tup_ins, 0) AS inserted
         FROM pg_stat_database d LEFT JOIN pg_stat_user_tables t ON t.relname = 'agent_credentials'
         WHERE d.datname = current_database()`,
      );
      return { commits: Number(rows[0]!.commits), inserted: Number(rows[0]!.inserted) };
    };
    try {
      const before = await stats();
      const gateway = await WsAgent.open(app.urls.opamp, {
        headers: { Authorization: `Bearer ${gatewayToken}` },
      });
      const closed = new Promise<never>((_, reject) =>
        gateway.socket.once('close', (code, reason) =>
          reject(new Error(`the gateway was closed: ${code} ${reason.toString()}`)),
        ),
      );
      closed.catch(() => undefined);
      const hello = await gateway.send(connect);
      expect(hello.customMessage?.type).to.equal('connectResult');

      const uids = Array.from({ length: agents }, () => newUid());
      for (const uid of uids)
        gateway.socket.send(
          frame(agentMessage(uid, { agentDescription: description({ 'service.name': 'behind-gateway' }) })),
        );
      const replies = [];
      for (let n = 0; n < agents; n++) replies.push(await Promise.race([gateway.next(), closed]));

      expect(replies.filter((r) => r.errorResponse !== undefined).length, 'refusals').to.equal(0);
      expect(replies.map((r) => Buffer.from(r.instanceUid).toString('hex')).sort()).to.deep.equal(
        uids.map(hex).sort(),
      );
      expect(gateway.closeCode, 'the gateway is still open').to.equal(undefined);
      for (const uid of uids)
        expect(app.registry.get(uid as InstanceUid)?.session, uid).to.include({
          viaGateway: true,
          transport: 'ws',
        });
      const bound = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM agent_credentials WHERE kind = 'token' AND name = 'gw' AND revoked_at IS NULL`,
      );
      expect(Number(bound.rows[0]!.n), 'ids bound to the gateway token').to.equal(agents);

      // Statistics reach the views once each backend reports them (within seconds of going idle).
      const after = await eventually(async () => {
        const now = await stats();
        return now.inserted - before.inserted >= agents && now;
      }, 'the inserts in pg_stat_user_tables');
      const commits = after.commits - before.commits;
      expect(commits, `${commits} transactions for ${agents} new ids`).to.be.below(agents / 10);
      await gateway.close();
    } finally {
      await client.end();
    }
  });
});
