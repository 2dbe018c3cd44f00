// The change tracker: which agents changed, in windows of distinct instance UIDs. The persistence
// writer consumes the windows; each window holds every agent marked since the previous one, so
// nothing is lost between windows (a window with no marks is not emitted).

import {
  Subject,
  bufferTime,
  filter,
  map,
  type Observable,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { InstanceUid } from '../../events/ids.ts';

/**
 * The agent an event marks for flush, or undefined. Connect, disconnect, evict, every report and
 * compliance changes mark; a check-in (a healthy agent's empty heartbeat) marks nothing (SPEC Events).
 */
export function marksDirty(event: FleetEvent): InstanceUid | undefined {
  switch (event.type) {
    case 'AgentConnected':
    case 'AgentDisconnected':
    case 'AgentEvicted':
    case 'AgentStatusReported':
    case 'AgentHealthReported':
    case 'AgentEffectiveConfigReported':
    case 'AgentPackageStatusesReported':
    case 'AgentComplianceChanged':
      return event.data.uid;
    case 'AgentCheckedIn':
    case 'AgentFullStateRequested':
    case 'GatewayConnectAnswered':
    case 'GatewayConnectionClosed':
      return undefined;
    default: {
      const _exhaustive: never = event;
      return undefined;
    }
  }
}

export interface ChangeTracker {
  /** Hot stream: one set per window that had marks. Subscribe before events flow. */
  readonly windows$: Observable<ReadonlySet<InstanceUid>>;
  stop(): void;
}

export const flushWindowMs = 5000;

export function createChangeTracker(
  events$: Observable<FleetEvent>,
  options: { windowMs?: number; scheduler?: SchedulerLike } = {},
): ChangeTracker {
  const windows = new Subject<ReadonlySet<InstanceUid>>();
  const windowMs = options.windowMs ?? flushWindowMs;
  const buffered = options.scheduler
    ? bufferTime<InstanceUid>(windowMs, options.scheduler)
    : bufferTime<InstanceUid>(windowMs);
  const subscription: Subscription = events$
    .pipe(
      map(marksDirty),
      filter((uid): uid is InstanceUid => uid !== undefined),
      buffered,
      filter((uids) => uids.length > 0),
      map((uids) => new Set(uids) as ReadonlySet<InstanceUid>),
    )
    .subscribe(windows);
  return {
    windows$: windows.asObservable(),
    stop: () => subscription.unsubscribe(),
  };
}
