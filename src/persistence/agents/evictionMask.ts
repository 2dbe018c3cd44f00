// Agents this replica evicted and the store may still list. The sweep removes an agent from the
// registry at once, but its soft delete reaches the store with the next flush (up to a window
// later); meanwhile the store still holds the row this replica wrote, and a list would show the
// agent again. The mask hides those rows from the moment of the eviction until a store read that
// started after the soft delete was written has completed.
//
// It hides a stored agent only while the stored copy is not newer than the evicted one: a sibling
// that heard from the agent later (it moved) wrote a later last_seen, and that agent stays listed.
// No IO, no clock; pgStoredLists.ts feeds it from the bus and from its reads.

import type { InstanceUid } from '../../events/ids.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';

interface Masked {
  /** The evicted copy's last_seen. */
  readonly lastSeen: number;
  /** The number of mirror reads started when the soft delete was reported written; unset before. */
  readonly writtenAtRead?: number;
}

export interface EvictionMask {
  readonly size: number;
  /** AgentEvicted: hide the stored copy. */
  evicted(uid: InstanceUid, lastSeen: number): void;
  /** AgentConnected: the registry holds the agent again (the local entry wins anyway). */
  returned(uid: InstanceUid): void;
  /** AgentsSoftDeleted, with the number of mirror reads started so far. */
  softDeleted(uids: readonly InstanceUid[], readsStarted: number): void;
  /** Mirror read number `read` (counted from 1) completed: it saw every soft delete written before it started. */
  readCompleted(read: number): void;
  /** True when `stored` is the copy of an agent this replica evicted. */
  hides(stored: AgentState): boolean;
  /** Every masked agent with the evicted copy's last_seen (for a count the database makes). */
  forEach(visit: (uid: InstanceUid, lastSeen: number) => void): void;
  /** How many of the stored agents `get` finds the mask hides. */
  countHidden(get: (uid: InstanceUid) => AgentState | undefined): number;
}

export function createEvictionMask(): EvictionMask {
  const masked = new Map<InstanceUid, Masked>();
  return {
    get size() {
      return masked.size;
    },
    evicted: (uid, lastSeen) => void masked.set(uid, { lastSeen }),
    returned: (uid) => void masked.delete(uid),
    softDeleted(uids, readsStarted) {
      for (const uid of uids) {
        const entry = masked.get(uid);
        if (entry !== undefined && entry.writtenAtRead === undefined)
          masked.set(uid, { lastSeen: entry.lastSeen, writtenAtRead: readsStarted });
      }
    },
    readCompleted(read) {
      if (masked.size === 0) return;
      for (const [uid, entry] of masked)
        if (entry.writtenAtRead !== undefined && entry.writtenAtRead < read) masked.delete(uid);
    },
    hides(stored) {
      if (masked.size === 0) return false;
      const entry = masked.get(stored.uid);
      return entry !== undefined && stored.lastSeen <= entry.lastSeen;
    },
    forEach(visit) {
      for (const [uid, entry] of masked) visit(uid, entry.lastSeen);
    },
    countHidden(get) {
      let hidden = 0;
      for (const [uid, entry] of masked) {
        const stored = get(uid);
        if (stored !== undefined && stored.lastSeen <= entry.lastSeen) hidden++;
      }
      return hidden;
    },
  };
}
