// The in-process event bus: an RxJS Subject behind publish() and a read-only events$.
// Delivery is synchronous: when publish() returns, every subscribed projection has folded the event,
// so a reply built right after publishing sees the new state.

import { Subject, type Observable } from 'rxjs';
import type { FleetEvent } from './fleetEvent.ts';

export interface EventBus {
  publish(event: FleetEvent): void;
  readonly events$: Observable<FleetEvent>;
  /** Completes the stream; projections see completion and finish their work. */
  close(): void;
}

export function createEventBus(): EventBus {
  const subject = new Subject<FleetEvent>();
  return {
    publish: (event) => subject.next(event),
    events$: subject.asObservable(),
    close: () => subject.complete(),
  };
}
