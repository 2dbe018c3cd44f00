// The liveness sweep's adapter: on a scheduler tick, run the pure sweep over the registry and publish
// what it found. The scheduler is injected, so specs drive it in virtual time.

import { interval, type SchedulerLike, type Subscription } from 'rxjs';
import type { EventBus } from '../../events/bus.ts';
import type { InstanceUid } from '../../events/ids.ts';
import type { ProjectionErrorHandler, Registry } from '../registry/registryProjection.ts';
import { sweep, sweepIntervalMs, type LivenessThresholds } from './sweep.ts';

export interface LivenessSweeper {
  /** Runs one sweep now (also what each tick does). */
  sweepNow(): void;
  stop(): void;
}

export function createLivenessSweeper(deps: {
  bus: EventBus;
  registry: Registry;
  thresholds: LivenessThresholds;
  scheduler: SchedulerLike;
  onError: ProjectionErrorHandler;
  /**
   * Called for each agent the sweep disconnects or evicts, before its events are published: the
   * connection that held it holds it no more (it is connected again by its next message).
   */
  onGone?: (uid: InstanceUid) => void;
  /** Whether an open WebSocket here holds the agent now (sweep.ts SweepOptions.heldHere). */
  heldHere?: (uid: InstanceUid) => boolean;
}): LivenessSweeper {
  const { bus, registry, thresholds, scheduler, heldHere } = deps;
  const options = {
    longestSilentFirst: true,
    ...(heldHere && { heldHere: (agent: { readonly uid: InstanceUid }) => heldHere(agent.uid) }),
  };
  function sweepNow(): void {
    try {
      const events = sweep(registry.bySilence(), scheduler.now(), thresholds, options);
      for (const event of events) {
        deps.onGone?.(event.data.uid);
        bus.publish(event);
      }
    } catch (error) {
      deps.onError('liveness', error);
    }
  }
  const subscription: Subscription = interval(sweepIntervalMs(thresholds), scheduler).subscribe(sweepNow);
  return { sweepNow, stop: () => subscription.unsubscribe() };
}
