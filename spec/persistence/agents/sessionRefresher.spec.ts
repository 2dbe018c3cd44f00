import { expect } from 'chai';
import { createEventBus } from '../../../src/events/bus.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import {
  aliveTimes,
  createSessionLedger,
  isSessionDue,
  keepaliveMs,
  type SessionLedger,
} from '../../../src/persistence/agents/sessionLedger.ts';
import { createSessionRefresher } from '../../../src/persistence/agents/sessionRefresher.ts';
import { walkSlice } from '../../../src/io/nextTurn.ts';
import { createRegistryProjection } from '../../../src/projections/registry/registryProjection.ts';
import { checkedIn, connected, disconnected, evicted, uid } from '../../support/events.ts';
import { VirtualClock } from '../../support/virtualTime.ts';
import { MemoryWriter } from './memoryWriter.ts';
import { agent } from './storeFixtures.ts';

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('session keepalive (durability rule 9)', () => {
  it('is two thirds of the disconnect threshold', () => {
    expect(keepaliveMs(45_000, 5000)).to.equal(30_000);
  });

  it('is clamped so keepalive plus one pass fits under the threshold', () => {
    expect(keepaliveMs(12_000, 5000)).to.equal(7000);
    expect(keepaliveMs(3000, 5000)).to.equal(0);
  });

  it('makes a row due when none was written, or when it aged to the keepalive with a later last_seen', () => {
    const a = agent(1, { lastSeen: 1000, connected: true });
    const mark = (at: number) => ({ updatedAt: at, aliveAt: at, connected: true });
    expect(isSessionDue(undefined, a, 1000, 1000, 30_000)).to.equal(true);
    expect(isSessionDue(mark(500), a, 1000, 30_499, 30_000)).to.equal(false);
    expect(isSessionDue(mark(500), a, 1000, 30_500, 30_000)).to.equal(true);
    expect(isSessionDue(mark(1000), a, 1000, 40_000, 30_000)).to.equal(false);
  });

  it('makes a row due at once when the connection state differs from the one written', () => {
    const a = agent(1, { lastSeen: 1000, connected: false });
    expect(isSessionDue({ updatedAt: 1000, aliveAt: 1000, connected: true }, a, 1000, 1001, 30_000)).to.equal(
      true,
    );
    expect(
      isSessionDue({ updatedAt: 1000, aliveAt: 1000, connected: false }, a, 1000, 1001, 30_000),
    ).to.equal(false);
  });

  it('makes the row of a quiet agent due when its socket answered since, counting from the alive time written', () => {
    const a = agent(1, { lastSeen: 1000, connected: true });
    const written = { updatedAt: 1000, aliveAt: 20_000, connected: true };
    // No later answer: nothing new to say, however old the row.
    expect(isSessionDue(written, a, 20_000, 90_000, 30_000)).to.equal(false);
    // A later pong: due once the alive time written aged to the keepalive.
    expect(isSessionDue(written, a, 45_000, 49_999, 30_000)).to.equal(false);
    expect(isSessionDue(written, a, 45_000, 50_000, 30_000)).to.equal(true);
  });

  it('takes the alive time of connected agents only, and never earlier than last_seen', () => {
    const socket = () => 5000;
    const on = agent(1, { lastSeen: 1000, connected: true });
    const off = agent(2, { lastSeen: 1000, connected: false });
    const ahead = agent(3, { lastSeen: 9000, connected: true });
    expect([...aliveTimes([on, off, ahead], socket)]).to.deep.equal([[on.uid, 5000]]);
    expect(aliveTimes([on], undefined).size).to.equal(0);
    expect(aliveTimes([on], () => undefined).size).to.equal(0);
  });
});

describe('session refresher (durability rules 9, 14)', () => {
  /** A refresher over a registry on its own bus, writing to memory, in virtual time from 0. */
  function setUp(ledger: SessionLedger, passMs?: number) {
    const clock = new VirtualClock(0);
    const bus = createEventBus();
    const registry = createRegistryProjection(bus.events$, () => undefined);
    const writer = new MemoryWriter();
    const refresher = createSessionRefresher({
      registry,
      writer,
      ledger,
      scheduler: clock.scheduler,
      logger: silentLogger(),
      ...(passMs !== undefined && { passMs }),
    });
    return { clock, bus, writer, refresher };
  }

  it('rewrites due session rows every pass, including a sweep-detected disconnect', async () => {
    const { clock, bus, writer, refresher } = setUp(createSessionLedger(keepaliveMs(15_000, 5000)));
    bus.publish(connected(uid(1), 0));
    bus.publish(checkedIn(uid(1), 0));
    clock.advance(5000);
    await settle();
    expect(writer.sessions.map((batch) => batch.map((a) => [a.uid, a.lastSeen, a.connected]))).to.deep.equal([
      [[uid(1), 0, true]],
    ]);
    bus.publish(checkedIn(uid(1), 6000));
    // t=10000: the row's timestamp (last_seen 0) aged to the keepalive and there is a newer last_seen.
    clock.advance(5000);
    await settle();
    expect(writer.sessions.at(-1)?.map((a) => [a.lastSeen, a.connected])).to.deep.equal([[6000, true]]);
    // t=15000: the row (6000) is younger than the keepalive: nothing is written.
    clock.advance(5000);
    await settle();
    expect(writer.sessions).to.have.length(2);
    // A disconnect keeps last_seen (rule 14); the pass still carries it to the row.
    bus.publish(disconnected(uid(1), 15_000));
    clock.advance(5000);
    await settle();
    expect(writer.sessions.at(-1)?.map((a) => [a.lastSeen, a.connected])).to.deep.equal([[6000, false]]);
    await refresher.stop();
  });

  it("keeps a quiet agent's row fresh with its socket's answers, and writes its disconnect at once", async () => {
    // What the WebSocket here holding the agent last answered (idleSweep.ts aliveAt).
    let socketAlive: number | undefined;
    const { clock, bus, writer, refresher } = setUp(
      createSessionLedger(keepaliveMs(45_000, 5000), () => socketAlive),
    );
    // One pass per step, each settled: a pass skips while the one before it is still in flight.
    const passes = async (n: number) => {
      for (let k = 0; k < n; k++) {
        clock.advance(5000);
        await settle();
      }
    };
    const written = () =>
      writer.sessions.map((batch, i) =>
        batch.map((a) => [a.lastSeen, a.connected, writer.sessionAlive[i]!.get(a.uid) ?? a.lastSeen]),
      );
    bus.publish(connected(uid(1), 0));
    bus.publish(checkedIn(uid(1), 0));
    clock.advance(5000);
    await settle();
    expect(written()).to.deep.equal([[[0, true, 0]]]);
    // Quiet: no message, but the socket answered a ping at 30 s. Due once 0 aged to the keepalive (30 s).
    socketAlive = 30_000;
    await passes(4);
    expect(written()).to.have.length(1);
    await passes(1);
    expect(clock.now()).to.equal(30_000);
    expect(written().at(-1)).to.deep.equal([[0, true, 30_000]]);
    // Answered again at 60 s: due when 30 s aged to the keepalive, at 60 s.
    socketAlive = 60_000;
    await passes(5);
    expect(written()).to.have.length(2);
    await passes(1);
    expect(written().at(-1)).to.deep.equal([[0, true, 60_000]]);
    // The socket stops answering and is cut: the disconnect (last_seen kept, rule 14) goes out at once.
    bus.publish(disconnected(uid(1), 60_000));
    await passes(1);
    expect(written().at(-1)).to.deep.equal([[0, false, 0]]);
    await refresher.stop();
  });

  it('walks a large registry in slices, letting waiting I/O through, and passes over an agent that left meanwhile', async () => {
    const { bus, writer, refresher } = setUp(createSessionLedger(keepaliveMs(15_000, 5000)), 3_600_000);
    const n = 5 * walkSlice;
    for (let i = 1; i <= n; i++) {
      bus.publish(connected(uid(i), 0));
      bus.publish(checkedIn(uid(i), 0));
    }
    const pass = refresher.pass();
    // Queued behind the walk's first slice: a walk in one turn would have handed its rows over.
    const between = new Promise<number>((resolve) =>
      setImmediate(() => {
        bus.publish(evicted(uid(n), 1000, 0));
        resolve(writer.sessions.length);
      }),
    );
    expect(await between, 'rows handed over before the I/O queued behind the walk ran').to.equal(0);
    await pass;
    expect(writer.sessions).to.have.length(1);
    expect(writer.sessions[0]!.length).to.equal(n - 1);
    expect(writer.sessions[0]!.some((a) => a.uid === uid(n))).to.equal(false);
    await refresher.stop();
  });
});
