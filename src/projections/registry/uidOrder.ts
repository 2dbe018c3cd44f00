// The registry's agents in instance_uid order, without a search tree. Registrations and departures
// are only noted (an append, a flag); the ordered array is rebuilt when it is read after a change:
// the newcomers sorted among themselves and merged into the previous order, departed ones skipped.
// A connect storm of 20,000 agents then costs one sort at the next listing instead of 20,000 tree
// insertions on the message path, and a listing after a few changes costs the same linear pass the
// snapshot always cost. Pending changes never outnumber the slots of the last build (or 65,536): past
// that the order is rebuilt at once, so the work stays linear in the changes and departed agents are
// not kept alive by the pending list for long. Pure data structure.

import type { InstanceUid } from '../../events/ids.ts';

export interface UidSlot<T extends { readonly uid: InstanceUid } = { readonly uid: InstanceUid }> {
  state: T;
  /** Position in the ordered array that last listed this slot. */
  index: number;
  /** False once the slot left (it is skipped, then dropped, at the next rebuild). */
  ordered: boolean;
}

export interface UidOrder<S extends UidSlot> {
  /** A slot joined (its uid is not held by any other present slot). */
  add(slot: S): void;
  /** A slot left. */
  remove(slot: S): void;
  /** Every present slot in ascending uid order: the same array until the membership changes. */
  slots(): readonly S[];
}

const byUid = (a: UidSlot, b: UidSlot): number => (a.state.uid < b.state.uid ? -1 : 1);

export function createUidOrder<S extends UidSlot>(minPending = 65_536): UidOrder<S> {
  /** The order as last built; slots that left since are still in it, flagged. */
  let built: S[] = [];
  /** Whether `built` is current (no change since it was built). */
  let current = true;
  /** Joined since the last build, in arrival order. */
  let joined: S[] = [];
  let present = 0;
  let departed = 0;

  function rebuild(): S[] {
    const fresh = joined.filter((s) => s.ordered).sort(byUid);
    const out = new Array<S>(present);
    let i = 0;
    let j = 0;
    let n = 0;
    while (n < present) {
      const old = built[i];
      if (old !== undefined && !old.ordered) {
        i++;
        continue;
      }
      const next = fresh[j];
      const slot =
        next === undefined || (old !== undefined && old.state.uid < next.state.uid)
          ? built[i++]!
          : fresh[j++]!;
      slot.index = n;
      out[n++] = slot;
    }
    built = out;
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
      changed();
    },
    slots: () => (current ? built : rebuild()),
  };
}
