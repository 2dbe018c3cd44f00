// The in-process event bus: an RxJS Subject behind publish() and a read-only events$.
// Delivery is synchronous unless `deliverOn` names a scheduler: then every subscriber receives the
// events later, in order, on that scheduler. Nothing in the service depends on synchronous delivery
// (the OpAMP handler decides replies from its own fold, never from a projection read back after
// publishing); specs use `deliverOn` to show it.

import { Subject, observeOn, type Observable, type SchedulerLike } from 'rxjs';
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
  const subject = new Subject<FleetEvent>();
  const events$ = options.deliverOn ? subject.pipe(observeOn(options.deliverOn)) : subject.asObservable();
  return {
    publish: (event) => subject.next(event),
    events$,
    close: () => subject.complete(),
  };
}
