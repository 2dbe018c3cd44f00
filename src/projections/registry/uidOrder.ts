// The registry's agents in instance_uid order, without a search tree. Registrations and departures
// are only noted (an append, a flag); the ordered array is rebuilt when it is read after a change:
// the newcomers sorted among themselves and merged into the previous order, departed ones skipped.
// A connect storm of 20,000 agents then costs one sort at the next listing instead of 20,000 tree
// insertions on the message path. Pending changes never outnumber the slots of the last build (or
// 65,536): past that the order is rebuilt at once, so the work stays linear in the changes and
// departed agents are not kept alive by the pending list for long. Pure data structure.
//
// The rebuild under churn (a few agents joining and leaving between two listings of 100,000) must
// not touch every agent's record: each one is a cache miss, and 100,000 of them cost more than the
// listing itself. So departures are flagged in a byte array beside the order (found by binary
// search), newcomers are placed by binary search, and the runs of the previous order between them
// are copied as references, never dereferenced. Each rebuild also says where every entry came from
// (`step`), so arrays aligned with the order (attribute columns) follow it the same way.

import type { InstanceUid } from '../../events/ids.ts';

export interface UidSlot<T extends { readonly uid: InstanceUid } = { readonly uid: InstanceUid }> {
  state: T;
  /** False once the slot left (it is skipped, then dropped, at the next rebuild). */
  ordered: boolean;
}

/** How one ordered array was made from the one before it. */
export interface OrderStep<S> {
  readonly prev: readonly S[];
  /** Per entry of the new array: its position in `prev`, or -1 for a newcomer. */
  readonly from: Int32Array;
}

export interface UidOrder<S extends UidSlot> {
  /** A slot joined (its uid is not held by any other present slot). */
  add(slot: S): void;
  /** A slot left. */
  remove(slot: S): void;
  /** Every present slot in ascending uid order: the same array until the membership changes. */
  slots(): readonly S[];
  /** How the array slots() last answered was made from the one before, when it was rebuilt from one. */
  step(): OrderStep<S> | undefined;
}

interface Keyed {
  readonly state: { readonly uid: InstanceUid };
}

/** First position in `slots[lo..]` whose uid is not below `uid`. */
function lowerBound(slots: readonly Keyed[], uid: InstanceUid, lo = 0): number {
  let hi = slots.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (slots[mid]!.state.uid < uid) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The position of `slot` in an ordered array handed out by slots(), or -1 when it is not in it. */
export function positionOf(slots: readonly Keyed[], slot: Keyed): number {
  const at = lowerBound(slots, slot.state.uid);
  return slots[at] === slot ? at : -1;
}

const byUid = (a: UidSlot, b: UidSlot): number => (a.state.uid < b.state.uid ? -1 : 1);

export function createUidOrder<S extends UidSlot>(minPending = 65_536): UidOrder<S> {
  /** The order as last built; slots that left since are still in it, flagged in `gone`. */
  let built: S[] = [];
  let gone = new Uint8Array(0);
  let lastStep: OrderStep<S> | undefined;
  /** Whether `built` is current (no change since it was built). */
  let current = true;
  /** Joined since the last build, in arrival order. */
  let joined: S[] = [];
  let present = 0;
  let departed = 0;

  function rebuild(): S[] {
    const fresh = joined.filter((s) => s.ordered).sort(byUid);
    const out = new Array<S>(present);
    const from = new Int32Array(present);
    let i = 0;
    let n = 0;
    const copyUpTo = (end: number) => {
      for (; i < end; i++) {
        if (gone[i] !== 0) continue;
        out[n] = built[i]!;
        from[n++] = i;
      }
    };
    for (const slot of fresh) {
      copyUpTo(lowerBound(built, slot.state.uid, i));
      out[n] = slot;
      from[n++] = -1;
    }
    copyUpTo(built.length);
    lastStep = { prev: built, from };
    built = out;
    gone = new Uint8Array(out.length);
    joined = [];
    departed = 0;
    current = true;
    return out;
  }

  function changed(): void {
    current = false;
    if (joined.length + departed > Math.max(minPending, built.length)) rebuild();
  }

  return {
    add(slot) {
      slot.ordered = true;
      joined.push(slot);
      present++;
      changed();
    },
    remove(slot) {
      if (!slot.ordered) return;
      slot.ordered = false;
      present--;
      departed++;
      // A slot that joined since the last build is not in it: the rebuild skips it by its flag.
      const at = positionOf(built, slot);
      if (at >= 0) gone[at] = 1;
      changed();
    },
    slots: () => (current ? built : rebuild()),
    step: () => lastStep,
  };
}
