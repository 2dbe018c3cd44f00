// The change tracker: which agents changed, in windows. The persistence flusher reads this one
// stream: each window holds every agent marked since the previous window, and for the agents evicted
// in it the facts the soft delete needs, so nothing is lost between windows and the flusher never
// listens to the bus itself. A window with no marks is not emitted.

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

/** An eviction as the soft delete needs it (SPEC rule 16). */
export interface Eviction {
  readonly uid: InstanceUid;
  /** The evicted copy's last_seen (Unix ms). */
  readonly lastSeen: number;
  /** When the sweep evicted it (Unix ms). */
  readonly at: number;
}

export interface ChangeWindow {
  /** Every agent marked in the window, the evicted ones included. */
  readonly changed: ReadonlySet<InstanceUid>;
  /** Agents evicted in the window (the latest eviction of each). */
  readonly evicted: ReadonlyMap<InstanceUid, Eviction>;
}

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
    case 'AgentRemoteConfigReported':
    case 'AgentComplianceChanged':
      return event.data.uid;
    case 'AgentCheckedIn':
    case 'AgentFullStateRequested':
    case 'AgentAvailableComponentsReported': // in memory only: another replica asks the agent again
    case 'AgentsSoftDeleted':
    case 'AgentRemoteConfigOffered':
    case 'AgentConnectionSettingsReported': // in memory only, like available components
    case 'AgentOwnTelemetryOffered':
    case 'AgentCommandSent':
    case 'JobGateTripped':
    case 'RemoteConfigChanged':
    case 'RemoteConfigRemoved':
    case 'RemoteConfigRejected':
    case 'RemoteConfigPinned':
    case 'GatewayConnectAnswered':
    case 'GatewayConnectionClosed':
    case 'AgentCredentialRevoked':
      return undefined;
    default: {
      const _exhaustive: never = event;
      return undefined;
    }
  }
}

type Mark = InstanceUid | Eviction;

function markOf(event: FleetEvent): Mark | undefined {
  if (event.type === 'AgentEvicted')
    return { uid: event.data.uid, lastSeen: event.data.lastSeen, at: event.at };
  return marksDirty(event);
}

/** Folds one window's marks, in order, into a ChangeWindow. Pure. */
export function windowOf(marks: readonly Mark[]): ChangeWindow {
  const changed = new Set<InstanceUid>();
  const evicted = new Map<InstanceUid, Eviction>();
  for (const mark of marks) {
    if (typeof mark === 'string') changed.add(mark);
    else {
      changed.add(mark.uid);
      evicted.set(mark.uid, mark);
    }
  }
  return { changed, evicted };
}

export interface ChangeTracker {
  /** Hot stream: one window per interval that had marks. Subscribe before events flow. */
  readonly windows$: Observable<ChangeWindow>;
  stop(): void;
}

export const flushWindowMs = 5000;

export function createChangeTracker(
  events$: Observable<FleetEvent>,
  options: { windowMs?: number; scheduler?: SchedulerLike } = {},
): ChangeTracker {
  const windows = new Subject<ChangeWindow>();
  const windowMs = options.windowMs ?? flushWindowMs;
  const buffered = options.scheduler
    ? bufferTime<Mark>(windowMs, options.scheduler)
    : bufferTime<Mark>(windowMs);
  const subscription: Subscription = events$
    .pipe(
      map(markOf),
      filter((mark): mark is Mark => mark !== undefined),
      buffered,
      filter((marks) => marks.length > 0),
      map(windowOf),
    )
    .subscribe(windows);
  return {
    windows$: windows.asObservable(),
    stop: () => subscription.unsubscribe(),
  };
}
