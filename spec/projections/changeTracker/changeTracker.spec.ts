import { expect } from 'chai';
import { createEventBus } from '../../../src/events/bus.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import {
  createChangeTracker,
  marksDirty,
  type ChangeWindow,
} from '../../../src/projections/changeTracker/changeTracker.ts';
import { VirtualClock } from '../../support/virtualTime.ts';
import { checkedIn, connected, described, disconnected, evicted, uid } from '../../support/events.ts';

describe('change tracker', () => {
  it('marks connects, disconnects, evictions, reports and compliance changes, but not check-ins', () => {
    const a = uid(1);
    expect(marksDirty(connected(a, 1))).to.equal(a);
    expect(marksDirty(disconnected(a, 1))).to.equal(a);
    expect(marksDirty(evicted(a, 1, 0))).to.equal(a);
    expect(marksDirty(described(a, 1, {}))).to.equal(a);
    expect(marksDirty(checkedIn(a, 1))).to.equal(undefined);
    expect(
      marksDirty({ type: 'AgentFullStateRequested', at: 1, data: { uid: a, reason: 'no_description' } }),
    ).to.equal(undefined);
  });

  it('emits each 5-second window once, with distinct uids, and skips empty windows', () => {
    const clock = new VirtualClock(0);
    const bus = createEventBus();
    const tracker = createChangeTracker(bus.events$, { scheduler: clock.scheduler });
    const windows: (readonly InstanceUid[])[] = [];
    tracker.windows$.subscribe((w) => windows.push([...w.changed].sort()));

    bus.publish(connected(uid(1), 0));
    bus.publish(described(uid(1), 0, {}));
    bus.publish(connected(uid(2), 0));
    clock.advance(4999);
    expect(windows).to.deep.equal([]);
    clock.advance(1);
    expect(windows).to.deep.equal([[uid(1), uid(2)]]);
    bus.publish(checkedIn(uid(1), 5001));
    clock.advance(5000);
    expect(windows).to.have.length(1);
    bus.publish(disconnected(uid(2), 10_001));
    clock.advance(5000);
    expect(windows).to.deep.equal([[uid(1), uid(2)], [uid(2)]]);
  });

  it('loses nothing between windows: marks at the edges land in exactly one window', () => {
    const clock = new VirtualClock(0);
    const bus = createEventBus();
    const tracker = createChangeTracker(bus.events$, { scheduler: clock.scheduler });
    const windows: InstanceUid[][] = [];
    tracker.windows$.subscribe((w) => windows.push([...w.changed]));
    for (let i = 1; i <= 30; i++) {
      bus.publish(connected(uid(i), clock.now()));
      clock.advance(999);
    }
    clock.advance(5000);
    const all = windows.flat();
    expect(all).to.have.length(30);
    expect(new Set(all).size).to.equal(30);
  });

  it('carries each eviction in its window: the latest eviction of an agent, with its last_seen', () => {
    const clock = new VirtualClock(0);
    const bus = createEventBus();
    const tracker = createChangeTracker(bus.events$, { scheduler: clock.scheduler });
    const windows: ChangeWindow[] = [];
    tracker.windows$.subscribe((w) => windows.push(w));
    bus.publish(connected(uid(1), 0));
    bus.publish(evicted(uid(1), 1000, 10));
    bus.publish(connected(uid(1), 2000));
    bus.publish(evicted(uid(1), 3000, 2000));
    bus.publish(evicted(uid(2), 3000, 5));
    clock.advance(5000);
    expect(windows).to.have.length(1);
    expect([...windows[0]!.changed]).to.deep.equal([uid(1), uid(2)]);
    expect([...windows[0]!.evicted.values()]).to.deep.equal([
      { uid: uid(1), lastSeen: 2000, at: 3000 },
      { uid: uid(2), lastSeen: 5, at: 3000 },
    ]);
  });

  it('emits the marks still buffered when the bus completes (final flush on shutdown)', () => {
    const clock = new VirtualClock(0);
    const bus = createEventBus();
    const tracker = createChangeTracker(bus.events$, { scheduler: clock.scheduler });
    const windows: InstanceUid[][] = [];
    let completed = false;
    tracker.windows$.subscribe({
      next: (w) => windows.push([...w.changed]),
      complete: () => (completed = true),
    });
    bus.publish(connected(uid(3), 0));
    clock.advance(1000);
    bus.close();
    expect(windows).to.deep.equal([[uid(3)]]);
    expect(completed).to.equal(true);
  });
});
