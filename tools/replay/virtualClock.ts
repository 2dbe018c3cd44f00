// Virtual time for replay: an RxJS VirtualTimeScheduler that is moved forward to each record's receive
// time, running every timer (the liveness sweep) that falls due on the way, in order.

import { VirtualAction, VirtualTimeScheduler, type Subscription } from 'rxjs';

/**
 * RxJS's VirtualAction makes a new action each time a periodic action reschedules itself and chains
 * it to the previous one; a recording spanning hours of one-second sweeps then builds a chain that
 * overflows the stack when unsubscribed. This action reschedules itself in place, as AsyncAction does.
 */
class ReschedulingAction<T> extends VirtualAction<T> {
  override schedule(state?: T, delay = 0): Subscription {
    if (!Number.isFinite(delay)) return super.schedule(state, delay);
    // AsyncAction.prototype.schedule: reuses this action (RxJS exports no AsyncAction to extend).
    const asyncAction = Object.getPrototypeOf(VirtualAction.prototype) as {
      schedule(this: VirtualAction<T>, state?: T, delay?: number): Subscription;
    };
    return asyncAction.schedule.call(this, state, delay);
  }
}

export interface VirtualClock {
  readonly scheduler: VirtualTimeScheduler;
  readonly now: () => number;
  /** Runs every action due at or before `time`, then sets the clock to `time`. Never moves backwards. */
  advanceTo(time: number): void;
}

export function createVirtualClock(start: number): VirtualClock {
  const scheduler = new VirtualTimeScheduler(ReschedulingAction);
  scheduler.frame = start;
  return {
    scheduler,
    now: () => scheduler.frame,
    advanceTo(time) {
      if (time < scheduler.frame) return; // records are in handling order; a clock step back stays put
      scheduler.maxFrames = time;
      scheduler.flush();
      scheduler.frame = time;
    },
  };
}
