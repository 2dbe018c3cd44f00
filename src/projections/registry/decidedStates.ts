// The agents' states as decided and not yet folded (fold once: docs/events.md "Decide, then fold").
// The OpAMP handler's decision already folded a message's events into the agent after them; the
// registry keeps that state instead of folding the events again. Each decision is a batch: the
// state, and the events it was decided with, which arrive on the bus in that order, maybe later
// (a bus that delivers later) and maybe interleaved with others (a subscriber that publishes while
// an event is delivered). An event is matched to its batch by identity:
// - the last event of a batch: the registry takes the batch's state; batches decided before it
//   that are still arriving are superseded (a decision is made on the one before it);
// - any other event of a batch: nothing to fold;
// - an event of no batch (the sweep's, a revocation's): folded, by the registry and into the
//   states still waiting, so a decided state never loses it.
// Pure data structure, no IO; one per registry.

import type { AgentEvent } from '../../events/fleetEvent.ts';
import type { InstanceUid } from '../../events/ids.ts';
import type { AgentState } from '../agent/agentState.ts';
import { evolveAgent } from '../agent/evolveAgent.ts';

/** What the registry does with an arriving agent event. */
export type Arrival =
  | { readonly kind: 'fold' }
  | { readonly kind: 'skip' }
  | { readonly kind: 'keep'; readonly state: AgentState | undefined };

export interface DecidedStates {
  /** Pending decisions, across agents (0: every event is folded). */
  readonly size: number;
  /** Call before publishing `events`, in this order; `state` is the agent after them. */
  decided(uid: InstanceUid, state: AgentState | undefined, events: readonly AgentEvent[]): void;
  /** The latest decision about an agent with events still to arrive; undefined when none. */
  latest(uid: InstanceUid): { readonly state: AgentState | undefined } | undefined;
  /** Call for every agent event as it arrives from the bus. */
  arrived(event: AgentEvent): Arrival;
}

/** A decision, with the agent it is about (so the solo batch needs no wrapper). */
interface Batch {
  readonly uid: InstanceUid;
  state: AgentState | undefined;
  readonly events: readonly AgentEvent[];
  next: number;
  superseded: boolean;
}

const fold: Arrival = { kind: 'fold' };
const skip: Arrival = { kind: 'skip' };

export function createDecidedStates(): DecidedStates {
  const pending = new Map<InstanceUid, Batch[]>();
  /**
   * The one pending batch, held outside the map while it is the only one (a bus that delivers at
   * once: each message's events arrive before the next decision), so the common case costs no map
   * insert and delete per message. Anything else moves it into the map first.
   */
  let solo: Batch | undefined;

  function unsolo(): void {
    if (solo === undefined) return;
    const batch = solo;
    const uid = batch.uid;
    solo = undefined;
    const batches = pending.get(uid);
    if (batches === undefined) pending.set(uid, [batch]);
    else batches.unshift(batch);
  }

  function arrived(event: AgentEvent): Arrival {
    if (solo !== undefined) {
      const batch = solo;
      if (batch.events[batch.next] === event) {
        if (++batch.next < batch.events.length) return skip;
        solo = undefined;
        return { kind: 'keep', state: batch.state };
      }
      unsolo();
    }
    const uid = event.data.uid;
    const batches = pending.get(uid);
    if (batches === undefined) return fold;
    const k = batches.findIndex((b) => b.events[b.next] === event);
    if (k < 0) {
      for (const b of batches) b.state = evolveAgent(b.state, event);
      return fold;
    }
    const batch = batches[k]!;
    if (++batch.next < batch.events.length) return skip;
    batches.splice(k, 1);
    if (batches.length === 0) pending.delete(uid);
    if (batch.superseded) return skip;
    for (let j = 0; j < k; j++) batches[j]!.superseded = true;
    return { kind: 'keep', state: batch.state };
  }

  return {
    get size() {
      return pending.size + (solo === undefined ? 0 : 1);
    },
    decided(uid, state, events) {
      if (events.length === 0) return;
      const batch: Batch = { uid, state, events, next: 0, superseded: false };
      if (solo === undefined && pending.size === 0) {
        solo = batch;
        return;
      }
      unsolo();
      const batches = pending.get(uid);
      if (batches === undefined) pending.set(uid, [batch]);
      else batches.push(batch);
    },
    latest: (uid) => (solo !== undefined && solo.uid === uid ? solo : pending.get(uid)?.at(-1)),
    arrived,
  };
}
