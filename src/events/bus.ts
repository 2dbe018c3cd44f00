// The in-process event bus: publish() and a read-only events$ (an RxJS Observable; the bus hands out
// no Subject). Delivery is synchronous unless `deliverOn` names a scheduler: then every subscriber
// receives the events later, in order, on that scheduler. Nothing in the service depends on
// synchronous delivery (the OpAMP handler decides replies from its own fold, never from a projection
// read back after publishing, and hands the registry what it decided before publishing); specs use
// `deliverOn` to show it.
//
// It behaves as an RxJS Subject does (hot; a subscriber added or removed during a delivery takes
// effect from the next event; after close() subscribers complete at once), without a Subject's
// per-event closure and iterator: publish() runs on every message, several times.

import { Observable, observeOn, type SchedulerLike, type Subscriber } from 'rxjs';
import type { FleetEvent } from './fleetEvent.ts';

export interface EventBus {
  publish(event: FleetEvent): void;
  readonly events$: Observable<FleetEvent>;
  /** Completes the stream; projections see completion and finish their work. */
  close(): void;
}

export interface EventBusOptions {
  /** Deliver on this scheduler instead of synchronously inside publish(). */
  readonly deliverOn?: SchedulerLike;
}

export function createEventBus(options: EventBusOptions = {}): EventBus {
  /** Replaced, never changed in place, so a delivery in progress keeps the list it started with. */
  let subscribers: readonly Subscriber<FleetEvent>[] = [];
  let closed = false;
  const source = new Observable<FleetEvent>((subscriber) => {
    if (closed) {
      subscriber.complete();
      return undefined;
    }
    subscribers = [...subscribers, subscriber];
    return () => {
      subscribers = subscribers.filter((s) => s !== subscriber);
    };
  });
  const events$ = options.deliverOn ? source.pipe(observeOn(options.deliverOn)) : source;
  return {
    publish(event) {
      if (closed) return;
      const list = subscribers;
      for (let i = 0; i < list.length; i++) list[i]!.next(event);
    },
    events$,
    close() {
      if (closed) return;
      closed = true;
      const list = subscribers;
      subscribers = [];
      for (const subscriber of list) subscriber.complete();
    },
  };
}
