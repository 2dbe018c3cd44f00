import { expect } from 'chai';
import { Subject } from 'rxjs';
import { createEventBus } from '../../../src/events/bus.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import { createFlusher, type Flusher } from '../../../src/persistence/agents/flusher.ts';
import { createSessionLedger } from '../../../src/persistence/agents/sessionLedger.ts';
import { createRegistryProjection } from '../../../src/projections/registry/registryProjection.ts';
import { checkedIn, connected, evicted, uid } from '../../support/events.ts';
import { VirtualClock } from '../../support/virtualTime.ts';
import { MemoryWriter } from './memoryWriter.ts';

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('flusher (durability rules 7, 8, 16)', () => {
  let clock: VirtualClock;
  let bus: ReturnType<typeof createEventBus>;
  let windows: Subject<ReadonlySet<InstanceUid>>;
  let writer: MemoryWriter;
  let flusher: Flusher;
  let evictionsCounted: number;

  beforeEach(() => {
    clock = new VirtualClock(0);
    bus = createEventBus();
    const registry = createRegistryProjection(bus.events$, () => undefined);
    windows = new Subject();
    writer = new MemoryWriter();
    evictionsCounted = 0;
    flusher = createFlusher({
      windows$: windows,
      events$: bus.events$,
      registry,
      writer,
      ledger: createSessionLedger(1000),
      scheduler: clock.scheduler,
      logger: silentLogger(),
      retryMs: 5000,
      onEvictionsWritten: (n) => (evictionsCounted += n),
    });
  });

  const join = (n: number, at: number) => {
    bus.publish(connected(uid(n), at));
    bus.publish(checkedIn(uid(n), at));
  };

  it('saves agents still in the registry and soft-deletes evicted ones with their last_seen', async () => {
    join(1, 100);
    join(2, 200);
    bus.publish(evicted(uid(2), 9000, 200));
    windows.next(new Set([uid(1), uid(2)]));
    await flusher.idle();
    expect(writer.saves).to.deep.equal([[uid(1)]]);
    expect(writer.deletes).to.deep.equal([[{ uid: uid(2), lastSeen: 200, at: 9000 }]]);
    expect(evictionsCounted).to.equal(1);
  });

  it('never runs two flushes at once; marks that arrive meanwhile are flushed right after', async () => {
    join(1, 100);
    join(2, 200);
    writer.hold();
    windows.next(new Set([uid(1)]));
    windows.next(new Set([uid(2)]));
    await settle();
    expect(writer.saves).to.deep.equal([[uid(1)]]);
    writer.release();
    await settle();
    await flusher.idle();
    expect(writer.saves).to.deep.equal([[uid(1)], [uid(2)]]);
  });

  it('keeps the agents of a failed flush marked and retries them coalesced with newer changes', async () => {
    join(1, 100);
    join(2, 200);
    writer.failing = true;
    windows.next(new Set([uid(1)]));
    await flusher.idle();
    expect(flusher.pending).to.equal(1);
    writer.failing = false;
    windows.next(new Set([uid(2)]));
    await flusher.idle();
    expect(writer.saves).to.deep.equal([[uid(1)], [uid(1), uid(2)]]);
    expect(flusher.pending).to.equal(0);
  });

  it('retries a failed flush after the retry interval when no new window comes', async () => {
    join(1, 100);
    writer.failing = true;
    windows.next(new Set([uid(1)]));
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
    join(2, 200);
    writer.hold();
    windows.next(new Set([uid(1)]));
    windows.next(new Set([uid(2)]));
    const stopped = flusher.stop();
    writer.release();
    await stopped;
    expect(writer.saves).to.deep.equal([[uid(1)], [uid(2)]]);
  });

  it('saves an agent that came back after its eviction instead of soft-deleting it', async () => {
    join(1, 100);
    bus.publish(evicted(uid(1), 5000, 100));
    join(1, 6000);
    windows.next(new Set([uid(1)]));
    await flusher.idle();
    expect(writer.saves).to.deep.equal([[uid(1)]]);
    expect(writer.deletes).to.deep.equal([]);
  });
});
