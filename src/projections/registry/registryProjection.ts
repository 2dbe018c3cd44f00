// The registry adapter: folds agent events into a Map keyed by instance UID and keeps the agents in
// instance UID order (uidOrder.ts), so listing the fleet in order never sorts all of it. Cost per
// event is one Map lookup (plus an append on registration and a flag on eviction), never a fleet copy.
//
// Both structures hold the same small mutable slot per agent, so an update replaces the state in the
// slot without touching the order. Ordered reads walk the ordered array of the slots, rebuilt only
// after the membership changed since the last ordered read (the newcomers sorted and merged in).
//
// Fold once: a message's events come with the state its decision already folded them into
// (decided()); the registry keeps that state when the last of them arrives and folds only the events
// nobody decided a state for (decidedStates.ts).

import type { Observable, Subscription } from 'rxjs';
import type { AgentEvent, FleetEvent } from '../../events/fleetEvent.ts';
import { isAgentEvent } from '../../events/fleetEvent.ts';
import type { InstanceUid } from '../../events/ids.ts';
import type { AgentState } from '../agent/agentState.ts';
import type { AttributeColumn } from './attributeColumn.ts';
import { createAttributeColumns, type ColumnSlot } from './attributeColumns.ts';
import { createRecencyList, type RecencyNode } from './recencyList.ts';
import { createUidOrder, positionOf, type UidSlot } from './uidOrder.ts';
import { agentFlags } from '../agent/agentFlags.ts';
import { evolveAgent } from '../agent/evolveAgent.ts';
import { createDecidedStates } from './decidedStates.ts';

/** Agents read by position (an array is one). */
export interface OrderedAgents {
  readonly length: number;
  at(index: number): AgentState | undefined;
}

/** Read-only view of the live registry. Safe to call at any time; never blocks. */
export interface Registry {
  get(uid: InstanceUid): AgentState | undefined;
  readonly size: number;
  /** Every agent in ascending instance_uid order (string order of the canonical form). */
  ordered(): IterableIterator<AgentState>;
  /**
   * The same walk without an iterator, for hot read paths: calls `visit` in instance_uid order until
   * it returns false.
   */
  forEachOrdered(visit: (agent: AgentState, index: number) => boolean | void): void;
  /**
   * The column of attribute `key` aligned with forEachOrdered's indexes (see attributeColumn.ts).
   * Kept up to date as descriptions change, re-read from the slots after an agent registers or
   * leaves (attributeColumns.ts); call it in the same synchronous turn as the forEachOrdered walk it
   * serves, as later events change it in place.
   */
  attributeColumn(key: string): AttributeColumn;
  /**
   * The agent at `index` of forEachOrdered's order, for walks that read attribute columns only and
   * need few records (call it in the same synchronous turn as the column read it serves).
   */
  orderedAt(index: number): AgentState | undefined;
  /**
   * forEachOrdered's order as it is now, to read by index later (across awaits): later arrivals and
   * departures do not shift it, and each index reads its agent's latest state. Free to take.
   */
  orderedSnapshot(): OrderedAgents;
  /**
   * Each agent's flags (agentFlags.ts) aligned with forEachOrdered's indexes, for walks that filter
   * by the boolean terms without reading records. Kept up to date as agents change; call it in the
   * same synchronous turn as the walk it serves.
   */
  orderedFlags(): Uint8Array;
  /** Every agent, in no particular order (cheapest iteration). */
  values(): IterableIterator<AgentState>;
  /**
   * Every agent in the order of its last message, the longest silent first (recencyList.ts). Exact
   * while the clock only moves forward; after a clock step back an agent may sit up to that step out
   * of place. The registry must not change during the walk.
   */
  bySilence(): IterableIterator<AgentState>;
}

export interface RegistryProjection extends Registry {
  /**
   * `state` is the agent as a decision left it, after `events`, about to be published for it in
   * this order: call before publishing, on a bus of either kind. When the last of them arrives the
   * registry holds `state` (it does not fold them again). Until then get(uid) answers `state`, so
   * the agent's next message (handled before a later delivery, e.g. in the same socket read) is
   * decided on what came before it, as with delivery at once.
   */
  decided(uid: InstanceUid, state: AgentState | undefined, events: readonly AgentEvent[]): void;
  stop(): void;
}

export type ProjectionErrorHandler = (projection: string, error: unknown) => void;

interface Slot extends ColumnSlot, RecencyNode, UidSlot<AgentState> {
  /** agentFlags(state). */
  flags: number;
}

export function createRegistryProjection(
  events$: Observable<FleetEvent>,
  onError: ProjectionErrorHandler,
): RegistryProjection {
  const agents = new Map<InstanceUid, Slot>();
  const order = createUidOrder<Slot>();
  const columns = createAttributeColumns();
  const recency = createRecencyList<Slot>();

  /**
   * The slot of the last event's agent: one message publishes several events for one agent in a
   * row, and a lookup in a Map of 100,000 agents is a cache miss or two each time.
   */
  let recent: Slot | undefined;
  /** The flags aligned with the ordered snapshot they were built for (orderedFlags). */
  let flagsView = new Uint8Array(0);
  let flagsSnapshot: readonly Slot[] | undefined;
  /** States decided with their events, kept when the last of them arrives (decided()). */
  const decisions = createDecidedStates();

  function apply(event: FleetEvent): void {
    if (!isAgentEvent(event)) return;
    const arrival = decisions.size === 0 ? undefined : decisions.arrived(event);
    if (arrival?.kind === 'skip') return;
    const uid = event.data.uid;
    const slot = recent !== undefined && recent.state.uid === uid ? recent : agents.get(uid);
    recent = slot;
    const before = slot?.state;
    const after = arrival?.kind === 'keep' ? arrival.state : evolveAgent(before, event);
    if (after === before) return;
    if (after === undefined) {
      agents.delete(uid);
      recent = undefined;
      if (slot !== undefined) {
        order.remove(slot);
        recency.remove(slot);
      }
    } else if (slot === undefined) {
      const fresh: Slot = {
        state: after,
        ids: [],
        older: undefined,
        newer: undefined,
        listed: false,
        ordered: false,
        flags: agentFlags(after),
      };
      agents.set(uid, fresh);
      recent = fresh;
      order.add(fresh);
      recency.touch(fresh);
      columns.added(fresh);
    } else {
      slot.state = after;
      const flags = agentFlags(after);
      if (flags !== slot.flags) {
        slot.flags = flags;
        if (flagsSnapshot !== undefined) {
          const at = positionOf(flagsSnapshot, slot);
          if (at >= 0) flagsView[at] = flags;
        }
      }
      if (after.lastSeen !== before?.lastSeen) recency.touch(slot);
      if (after.description !== before?.description) columns.described(slot);
    }
  }

  const subscription: Subscription = events$.subscribe({
    next: (event) => {
      try {
        apply(event);
      } catch (error) {
        onError('registry', error);
      }
    },
  });

  function* ordered(): IterableIterator<AgentState> {
    // A later membership change replaces the snapshot; this walk keeps the array it started with.
    for (const slot of order.slots()) yield slot.state;
  }

  function forEachOrdered(visit: (agent: AgentState, index: number) => boolean | void): void {
    const slots = order.slots();
    for (let i = 0; i < slots.length; i++) if (visit(slots[i]!.state, i) === false) return;
  }

  function attributeColumn(key: string): AttributeColumn {
    const slots = order.slots();
    return columns.column(key, slots, order.step());
  }

  function orderedAt(index: number): AgentState | undefined {
    return order.slots()[index]?.state;
  }

  function orderedSnapshot(): OrderedAgents {
    const slots = order.slots();
    return { length: slots.length, at: (index) => slots[index]?.state };
  }

  function orderedFlags(): Uint8Array {
    const slots = order.slots();
    if (flagsSnapshot !== slots) {
      const view = new Uint8Array(slots.length);
      for (let i = 0; i < slots.length; i++) view[i] = slots[i]!.flags;
      flagsView = view;
      flagsSnapshot = slots;
    }
    return flagsView;
  }

  function* values(): IterableIterator<AgentState> {
    for (const slot of agents.values()) yield slot.state;
  }

  function* bySilence(): IterableIterator<AgentState> {
    for (const slot of recency.oldestFirst()) yield slot.state;
  }

  return {
    get(uid) {
      if (decisions.size !== 0) {
        const decided = decisions.latest(uid);
        if (decided !== undefined) return decided.state;
      }
      return agents.get(uid)?.state;
    },
    decided: (uid, state, events) => decisions.decided(uid, state, events),
    get size() {
      return agents.size;
    },
    ordered,
    forEachOrdered,
    attributeColumn,
    orderedAt,
    orderedSnapshot,
    orderedFlags,
    values,
    bySilence,
    stop: () => subscription.unsubscribe(),
  };
}
