// The list mirror: every live stored agent as fleet lists need it (the summary: no effective
// configs, packages or component health), ordered by instance_uid in a B+ tree as the registry keeps
// its own, so a list walks it in order and never sorts. mirrorSync.ts fills it from the store's
// rows (a reload fills a new mirror and swaps it in); this module does no IO and reads no clock
// (time comes in as `now`).
//
// Each agent lives in one small mutable slot, held by a Map (lookups) and the tree (order); an
// update replaces the state in the slot without touching either. Ordered walks use an array of the
// slots, rebuilt from the tree (a linear walk, not a sort) only after an agent came or went since
// the last walk.

import BTreeModule from 'sorted-btree';
import type { InstanceUid } from '../../events/ids.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';

const BTree = BTreeModule.default;

/** One stored agent as the mirror's reads return it (agentFromRow.ts). */
export interface MirrorEntry {
  /** The stored summary; `connected` as the session row says. */
  readonly agent: AgentState;
  /** Rule 10: the stored `connected: true` counts until this time (Unix ms); -Infinity when not connected. */
  readonly connectedUntil: number;
  /** Soft-deleted (rule 5): the mirror drops the agent. */
  readonly evicted: boolean;
}

export interface StoreMirror {
  readonly size: number;
  get(uid: InstanceUid): AgentState | undefined;
  /** The latest stored state of one agent: kept, replaced, or dropped when soft-deleted. */
  apply(entry: MirrorEntry): void;
  /**
   * Calls `visit` with every agent in ascending instance_uid order until it returns false, each as
   * of `now`: a stored session that is no longer fresh counts as disconnected (rule 10). `visit` must
   * not change the mirror.
   */
  forEachOrdered(now: number, visit: (agent: AgentState) => boolean | void): void;
}

interface Slot {
  state: AgentState;
  /** After this time the state must read as disconnected; Infinity when it already does. */
  staleAfter: number;
}

const staleAfterOf = (entry: MirrorEntry) => (entry.agent.connected ? entry.connectedUntil : Infinity);

export function createStoreMirror(): StoreMirror {
  const slots = new Map<InstanceUid, Slot>();
  const tree = new BTree<InstanceUid, Slot>();
  let ordered: Slot[] | null = [];

  function apply(entry: MirrorEntry): void {
    const uid = entry.agent.uid;
    const slot = slots.get(uid);
    if (entry.evicted) {
      if (slot !== undefined) {
        slots.delete(uid);
        tree.delete(uid);
        ordered = null;
      }
    } else if (slot === undefined) {
      const fresh = { state: entry.agent, staleAfter: staleAfterOf(entry) };
      slots.set(uid, fresh);
      tree.set(uid, fresh);
      ordered = null;
    } else {
      slot.state = entry.agent;
      slot.staleAfter = staleAfterOf(entry);
    }
  }

  function orderedSlots(): Slot[] {
    if (ordered === null) {
      const walk = new Array<Slot>(tree.size);
      let i = 0;
      tree.forEach((slot) => {
        walk[i++] = slot;
      });
      ordered = walk;
    }
    return ordered;
  }

  return {
    get size() {
      return slots.size;
    },
    get: (uid) => slots.get(uid)?.state,
    apply,
    forEachOrdered(now, visit) {
      const walk = orderedSlots();
      for (let i = 0; i < walk.length; i++) {
        const slot = walk[i]!;
        // Time only moves on: once stale, the state stays disconnected until a newer row comes.
        if (now > slot.staleAfter) {
          slot.state = { ...slot.state, connected: false };
          slot.staleAfter = Infinity;
        }
        if (visit(slot.state) === false) return;
      }
    },
  };
}
