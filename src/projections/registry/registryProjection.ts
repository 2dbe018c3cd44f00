// The registry adapter: folds agent events into a Map keyed by instance UID and keeps an index
// ordered by instance UID (a B+ tree), so a page of the fleet costs O(offset + limit), not a sort.
// Cost per event is one Map lookup (plus O(log n) on registration and eviction), never a fleet copy.

import BTreeModule from 'sorted-btree';
import type { Observable, Subscription } from 'rxjs';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import { isAgentEvent } from '../../events/fleetEvent.ts';
import type { InstanceUid } from '../../events/ids.ts';
import type { AgentState } from './agentState.ts';
import { evolveAgent } from './evolveAgent.ts';

const BTree = BTreeModule.default;

/** Read-only view of the live registry. Safe to call at any time; never blocks. */
export interface Registry {
  get(uid: InstanceUid): AgentState | undefined;
  readonly size: number;
  /** Every agent in ascending instance_uid order (string order of the canonical form). */
  ordered(): IterableIterator<AgentState>;
  /** Every agent, in no particular order (cheapest iteration). */
  values(): IterableIterator<AgentState>;
}

export interface RegistryProjection extends Registry {
  stop(): void;
}

export type ProjectionErrorHandler = (projection: string, error: unknown) => void;

export function createRegistryProjection(
  events$: Observable<FleetEvent>,
  onError: ProjectionErrorHandler,
): RegistryProjection {
  const agents = new Map<InstanceUid, AgentState>();
  const index = new BTree<InstanceUid, undefined>();

  function apply(event: FleetEvent): void {
    if (!isAgentEvent(event)) return;
    const uid = event.data.uid;
    const before = agents.get(uid);
    const after = evolveAgent(before, event);
    if (after === before) return;
    if (after === undefined) {
      agents.delete(uid);
      index.delete(uid);
    } else {
      if (before === undefined) index.set(uid, undefined);
      agents.set(uid, after);
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
    for (const uid of index.keys()) {
      const agent = agents.get(uid);
      if (agent !== undefined) yield agent;
    }
  }

  return {
    get: (uid) => agents.get(uid),
    get size() {
      return agents.size;
    },
    ordered,
    values: () => agents.values(),
    stop: () => subscription.unsubscribe(),
  };
}
