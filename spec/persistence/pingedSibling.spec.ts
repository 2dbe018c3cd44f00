// A quiet WebSocket agent across two replicas (real processes) on one database: it sends no
// heartbeats (no ReportsHeartbeat), so only its answers to the holder's pings say it is alive. The
// sibling must show it connected as long as those answers come, and disconnected once they stop
// (docs/persistence.md "Session rows", docs/protocol.md "Liveness").
//
// The heartbeat interval is long enough for the rule to hold with the 5-second refresh pass: the
// socket answers a ping about every interval, and its alive time must reach the row before the
// sibling's disconnect threshold (1.5 intervals) runs out. With 24 s: a pong noted at most 26 s after
// the previous one, written by the pass within 5 s more, against a threshold of 36 s.

import { expect } from 'chai';
import WebSocket from 'ws';
import { agentMessage, description, newUid, WsAgent } from '../support/agentClient.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { eventually } from './eventually.ts';
import { startReplica, type Replica } from './replica.ts';

const fleet = { heartbeat_interval: '24s', stale_missed_heartbeats: 10 };

/** `connected` of the agent as a replica answers GET /api/agents/{id}; undefined when not found. */
async function connectedOn(replica: Replica, uid: string): Promise<boolean | undefined> {
  const res = await fetch(`${replica.ui}/api/agents/${uid}`);
  if (res.status === 404) return undefined;
  expect(res.status, `${replica.name} GET /api/agents/${uid}`).to.equal(200);
  return ((await res.json()) as { connected: boolean }).connected;
}

describe('a quiet WebSocket agent kept connected by pings, seen from a sibling replica', function () {
  this.timeout(240_000);
  let db: TestDatabase;
  let replicas: Replica[] = [];

  before(async () => {
    db = await createTestDatabase();
    replicas = await Promise.all(
      ['a', 'b'].map((name) => startReplica(name, { database: db.config, fleet })),
    );
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await db.drop();
  });

  it('stays connected on the sibling while its socket answers pings, and is disconnected there once it stops', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const agent = await WsAgent.open(a.opamp, { autoPong: false });
    let answering = true;
    /** How many of A's pings the agent had received, and of those, answered. */
    let pinged = 0;
    let answered = 0;
    agent.socket.on('ping', (data: Buffer) => {
      pinged++;
      if (!answering) return;
      agent.socket.pong(data);
      answered++;
    });
    const closed = new Promise<void>((resolve) => agent.socket.once('close', () => resolve()));
    const uid = newUid();
    // capabilities 1: ReportsStatus alone, no ReportsHeartbeat. The only message it ever sends.
    await agent.send(agentMessage(uid, { capabilities: 1, agentDescription: description({ quiet: 'yes' }) }));
    await eventually(async () => (await connectedOn(b, uid)) === true, 'B to show the agent connected');

    // Three pings answered: over three heartbeat intervals without a message, past the 1.5-interval
    // threshold a message-only rule would apply. B is asked all along and must say connected each time.
    while (answered < 3) {
      expect(await connectedOn(b, uid), `B after ${answered} answered pings`).to.equal(true);
      expect(await connectedOn(a, uid), `A after ${answered} answered pings`).to.equal(true);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(agent.socket.readyState).to.equal(WebSocket.OPEN);

    // Silent from now on: A cuts the socket after the next ping goes unanswered, and B follows.
    answering = false;
    const answeredBefore = pinged;
    await eventually(async () => (await connectedOn(b, uid)) === false, 'B to show the agent disconnected', {
      timeoutMs: 60_000,
      everyMs: 250,
    });
    // Gone on B because the socket stopped answering: a ping had been left unanswered by then.
    expect(pinged).to.be.greaterThan(answeredBefore);
    await closed;
    expect(await connectedOn(a, uid)).to.equal(false);
  });
});
