import { expect } from 'chai';
import fc from 'fast-check';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { createUidOrder, positionOf, type UidSlot } from '../../../src/projections/registry/uidOrder.ts';

const slot = (uid: string): UidSlot => ({ state: { uid: uid as InstanceUid }, ordered: false });
const uids = (slots: readonly UidSlot[]) => slots.map((s) => s.state.uid);

describe('agents in instance_uid order', () => {
  it('lists present agents in uid order, each at its position, after any joins and departures', () => {
    const step = fc.oneof(
      fc.record({ join: fc.integer({ min: 0, max: 40 }) }),
      fc.record({ leave: fc.integer({ min: 0, max: 40 }) }),
      fc.constant({ read: true }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 120 }), fc.integer({ min: 1, max: 8 }), (steps, minPending) => {
        const order = createUidOrder<UidSlot>(minPending);
        const present = new Map<string, UidSlot>();
        let previous: readonly UidSlot[] = order.slots();
        const check = () => {
          const listed = order.slots();
          expect(uids(listed)).to.deep.equal([...present.keys()].sort());
          listed.forEach((s, i) => expect(positionOf(listed, s)).to.equal(i));
          // Every entry says where it was in the previous array, or that it is new there.
          const step = order.step();
          if (listed !== previous && step?.prev === previous)
            listed.forEach((s, i) =>
              expect(step.from[i]).to.equal(previous.includes(s) ? previous.indexOf(s) : -1),
            );
          previous = listed;
        };
        for (const s of steps) {
          if ('join' in s) {
            const uid = `u${String(s.join).padStart(2, '0')}`;
            if (present.has(uid)) continue;
            const fresh = slot(uid);
            present.set(uid, fresh);
            order.add(fresh);
          } else if ('leave' in s) {
            const uid = `u${String(s.leave).padStart(2, '0')}`;
            const gone = present.get(uid);
            if (gone === undefined) continue;
            present.delete(uid);
            order.remove(gone);
          } else check();
        }
        check();
      }),
    );
  });

  it('hands out the same array until the membership changes, and never changes one handed out', () => {
    const order = createUidOrder<UidSlot>();
    const [a, b, c] = ['b', 'a', 'c'].map(slot) as [UidSlot, UidSlot, UidSlot];
    order.add(a);
    order.add(b);
    const first = order.slots();
    expect(order.slots()).to.equal(first);
    order.add(c);
    order.remove(b);
    const second = order.slots();
    expect(uids(first)).to.deep.equal(['a', 'b']);
    expect(uids(second)).to.deep.equal(['b', 'c']);
  });

  it('takes a uid back as a new slot after its old one left', () => {
    const order = createUidOrder<UidSlot>();
    const old = slot('a');
    order.add(old);
    order.add(slot('b'));
    order.slots();
    order.remove(old);
    const again = slot('a');
    order.add(again);
    const listed = order.slots();
    expect(uids(listed)).to.deep.equal(['a', 'b']);
    expect(listed[0]).to.equal(again);
  });

  it('builds the order at once when pending changes outgrow the fleet, releasing departed slots', () => {
    const order = createUidOrder<UidSlot>(4);
    const slots = ['e', 'd', 'c', 'b', 'a'].map(slot);
    for (const s of slots) order.add(s); // the fifth pending change builds the order
    // Built without a read: the step to it is already taken, with every slot new in it.
    const step = order.step();
    expect(step?.prev).to.deep.equal([]);
    expect([...step!.from]).to.deep.equal([-1, -1, -1, -1, -1]);
    expect(uids(order.slots())).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
  });
});
