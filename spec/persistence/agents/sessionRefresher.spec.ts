import { expect } from 'chai';
import { createEventBus } from '../../../src/events/bus.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import {
  createSessionLedger,
  isSessionDue,
  keepaliveMs,
} from '../../../src/persistence/agents/sessionLedger.ts';
import { createSessionRefresher } from '../../../src/persistence/agents/sessionRefresher.ts';
import { createRegistryProjection } from '../../../src/projections/registry/registryProjection.ts';
import { checkedIn, connected, disconnected, uid } from '../../support/events.ts';
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
    expect(isSessionDue(undefined, a, 1000, 30_000)).to.equal(true);
    expect(isSessionDue({ updatedAt: 500, connected: true }, a, 30_499, 30_000)).to.equal(false);
    expect(isSessionDue({ updatedAt: 500, connected: true }, a, 30_500, 30_000)).to.equal(true);
    expect(isSessionDue({ updatedAt: 1000, connected: true }, a, 40_000, 30_000)).to.equal(false);
  });

  it('makes a row due at once when the connection state differs from the one written', () => {
    const a = agent(1, { lastSeen: 1000, connected: false });
    expect(isSessionDue({ updatedAt: 1000, connected: true }, a, 1001, 30_000)).to.equal(true);
    expect(isSessionDue({ updatedAt: 1000, connected: false }, a, 1001, 30_000)).to.equal(false);
  });
});

describe('session refresher (durability rules 9, 14)', () => {
  it('rewrites due session rows every pass, including a sweep-detected disconnect', async () => {
    const clock = new VirtualClock(0);
    const bus = createEventBus();
    const registry = createRegistryProjection(bus.events$, () => undefined);
    const writer = new MemoryWriter();
    const refresher = createSessionRefresher({
      registry,
      writer,
      ledger: createSessionLedger(keepaliveMs(15_000, 5000)),
      scheduler: clock.scheduler,
      logger: silentLogger(),
    });
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
});
