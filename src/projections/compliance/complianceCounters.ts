// The compliance counters projection: per attribute key, how often it went missing and how often it
// collided with a reserved filter name. Fed by AgentComplianceChanged; read by the metrics collector.

import type { Observable, Subscription } from 'rxjs';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { ProjectionErrorHandler } from '../registry/registryProjection.ts';

export interface ComplianceCounts {
  readonly missing: ReadonlyMap<string, number>;
  readonly conflicts: ReadonlyMap<string, number>;
}

export const emptyComplianceCounts: ComplianceCounts = { missing: new Map(), conflicts: new Map() };

const bump = (counts: ReadonlyMap<string, number>, keys: readonly string[]): ReadonlyMap<string, number> => {
  if (keys.length === 0) return counts;
  const next = new Map(counts);
  for (const key of keys) next.set(key, (next.get(key) ?? 0) + 1);
  return next;
};

/** Pure fold: only compliance changes count. The maps are small (one entry per configured key). */
export function evolveComplianceCounts(state: ComplianceCounts, event: FleetEvent): ComplianceCounts {
  if (event.type !== 'AgentComplianceChanged') return state;
  const { newlyMissing, newlyConflicting } = event.data;
  if (newlyMissing.length === 0 && newlyConflicting.length === 0) return state;
  return { missing: bump(state.missing, newlyMissing), conflicts: bump(state.conflicts, newlyConflicting) };
}

export interface ComplianceCountersProjection {
  current(): ComplianceCounts;
  stop(): void;
}

export function createComplianceCounters(
  events$: Observable<FleetEvent>,
  onError: ProjectionErrorHandler,
): ComplianceCountersProjection {
  let state = emptyComplianceCounts;
  const subscription: Subscription = events$.subscribe((event) => {
    try {
      state = evolveComplianceCounts(state, event);
    } catch (error) {
      onError('compliance', error);
    }
  });
  return { current: () => state, stop: () => subscription.unsubscribe() };
}
