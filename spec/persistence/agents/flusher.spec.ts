import { expect } from 'chai';
import { createEventBus } from '../../../src/events/bus.ts';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import { createFlusher, type Flusher } from '../../../src/persistence/agents/flusher.ts';
import { createSessionLedger, type SessionLedger } from '../../../src/persistence/agents/sessionLedger.ts';
import { createChangeTracker, flushWindowMs } from '../../../src/projections/changeTracker/changeTracker.ts';
import {
  createRegistryProjection,
  type RegistryProjection,
} from '../../../src/projections/registry/registryProjection.ts';
import { checkedIn, connected, disconnected, evicted, uid } from '../../support/events.ts';
import { VirtualClock } from '../../support/virtualTime.ts';
import { MemoryWriter } from './memoryWriter.ts';

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('flusher (durability rules 7, 8, 16)', () => {
  let clock: VirtualClock;
  let bus: ReturnType<typeof createEventBus>;
  let writer: MemoryWriter;
  let flusher: Flusher;
  let ledger: SessionLedger;
  let registry: RegistryProjection;
  let published: FleetEvent[];

  beforeEach(() => {
    clock = new VirtualClock(0);
    bus = createEventBus();
    registry = createRegistryProjection(bus.events$, () => undefined);
    const tracker = createChangeTracker(bus.events$, { scheduler: clock.scheduler });
    writer = new MemoryWriter();
    published = [];
    ledger = createSessionLedger(1000);
    flusher = createFlusher({
      windows$: tracker.windows$,
      registry,
      writer,
      ledger,
      scheduler: clock.scheduler,
      logger: silentLogger(),
      retryMs: 5000,
      publish: (event) => published.push(event),
    });
  });

  /** The change tracker closes its window: what was marked since the last one goes to the flusher. */
  const closeWindow = () => clock.advance(flushWindowMs);

  const join = (n: number, at: number) => {
    bus.publish(connected(uid(n), at));
    bus.publish(checkedIn(uid(n), at));
  };

  it('saves agents still in the registry and soft-deletes evicted ones with their last_seen', async () => {
    join(1, 100);
    join(2, 200);
    bus.publish(evicted(uid(2), 9000, 200));
    closeWindow();
    await flusher.idle();
    expect(writer.saves).to.deep.equal([[uid(1)]]);
    expect(writer.deletes).to.deep.equal([[{ uid: uid(2), lastSeen: 200, at: 9000 }]]);
    expect(published).to.deep.equal([{ type: 'AgentsSoftDeleted', at: 5000, data: { uids: [uid(2)] } }]);
  });

  it('never runs two flushes at once; marks that arrive meanwhile are flushed right after', async () => {
    join(1, 100);
    writer.hold();
    closeWindow();
    join(2, 200);
    closeWindow();
    await settle();
    expect(writer.saves).to.deep.equal([[uid(1)]]);
    writer.release();
    await settle();
    await flusher.idle();
    expect(writer.saves).to.deep.equal([[uid(1)], [uid(2)]]);
  });

  it('keeps the agents of a failed flush marked and retries them coalesced with newer changes', async () => {
    join(1, 100);
    writer.failing = true;
    closeWindow();
    await flusher.idle();
    expect(flusher.pending).to.equal(1);
    writer.failing = false;
    join(2, 200);
    closeWindow();
    await flusher.idle();
    expect(writer.saves).to.deep.equal([[uid(1)], [uid(1), uid(2)]]);
    expect(flusher.pending).to.equal(0);
  });

  it('retries a failed flush after the retry interval when no new window comes', async () => {
    join(1, 100);
    writer.failing = true;
    closeWindow();
    await flusher.idle();
    writer.failing = false;
    clock.advance(4999);
    await flusher.idle();
    expect(writer.saves).to.have.length(1);
    clock.advance(1);
    await settle();
    await flusher.idle();
    expect(writer.saves).to.deep.equal([[uid(1)], [uid(1)]]);
  });

  it('on stop waits for the flush in flight, then flushes what is still marked once more', async () => {
    join(1, 100);
    writer.hold();
    closeWindow();
    join(2, 200);
    closeWindow();
    const stopped = flusher.stop();
    writer.release();
    await stopped;
    expect(writer.saves).to.deep.equal([[uid(1)], [uid(2)]]);
  });

  it('saves an agent that came back after its eviction instead of soft-deleting it', async () => {
    join(1, 100);
    bus.publish(evicted(uid(1), 5000, 100));
    join(1, 6000);
    closeWindow();
    await flusher.idle();
    expect(writer.saves).to.deep.equal([[uid(1)]]);
    expect(writer.deletes).to.deep.equal([]);
  });

  it('writes the session row of a disconnect whose save the guard declined, and nothing more', async () => {
    join(1, 100);
    closeWindow();
    await flusher.idle();
    // The last report was flushed; the socket drops: last_seen stays (rule 14), the save declines.
    writer.declining.add(uid(1));
    bus.publish(disconnected(uid(1), 6000));
    closeWindow();
    await flusher.idle();
    expect(writer.saves).to.deep.equal([[uid(1)], [uid(1)]]);
    expect(writer.sessions.map((batch) => batch.map((a) => [a.uid, a.lastSeen, a.connected]))).to.deep.equal([
      [[uid(1), 100, false]],
    ]);
    // Recorded: the refresh pass has nothing left to write.
    expect(ledger.isDue(registry.get(uid(1))!, 6000)).to.equal(false);
  });

  it('leaves a declined disconnect whose session write failed due for the refresh pass', async () => {
    join(1, 100);
    closeWindow();
    await flusher.idle();
    writer.declining.add(uid(1));
    writer.failSessions = true;
    bus.publish(disconnected(uid(1), 6000));
    closeWindow();
    await flusher.idle();
    expect(writer.sessions).to.have.length(1);
    expect(ledger.isDue(registry.get(uid(1))!, 6000)).to.equal(true);
  });
});
