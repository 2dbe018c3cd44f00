// Virtual time for specs: an RxJS VirtualTimeScheduler that only moves when the spec says so.

import type { Subscription } from 'rxjs';
import { VirtualAction, VirtualTimeScheduler } from 'rxjs';

/**
 * RxJS's VirtualAction nests each reschedule inside the action before it, so a timer that reschedules
 * itself every second for a virtual hour is 3,600 subscriptions deep and unsubscribing it overflows
 * the stack. This one hangs every reschedule on the first action and drops the one it replaces:
 * unsubscribing the first still cancels whatever is pending, at a depth of two.
 */
class FlatVirtualAction<T> extends VirtualAction<T> {
  private first: FlatVirtualAction<T> | undefined;

  override schedule(state?: T, delay = 0): Subscription {
    if (!Number.isFinite(delay) || this.id === undefined || this.id === null)
      return super.schedule(state, delay);
    this.active = false;
    const next = new FlatVirtualAction(this.scheduler, this.work);
    const first = this.first ?? this;
    next.first = first;
    first.add(next);
    if (first !== this) first.remove(this);
    return next.schedule(state, delay);
  }
}

export class VirtualClock {
  readonly scheduler: VirtualTimeScheduler;

  /** `longTimers`: timers that run for many virtual hours can be stopped (FlatVirtualAction). */
  constructor(startMs = 1_700_000_000_000, options: { longTimers?: boolean } = {}) {
    this.scheduler =
      options.longTimers === true ? new VirtualTimeScheduler(FlatVirtualAction) : new VirtualTimeScheduler();
    this.scheduler.frame = startMs;
  }

  now(): number {
    return this.scheduler.now();
  }

  /** Runs every timer due up to `ms` from now, in order, and leaves the clock there. */
  advance(ms: number): void {
    const target = this.scheduler.frame + ms;
    this.scheduler.maxFrames = target;
    this.scheduler.flush();
    this.scheduler.frame = target;
  }
}
