// Virtual time for replay: an RxJS VirtualTimeScheduler that is moved forward to each record's receive
// time, running every timer (the liveness sweep) that falls due on the way, in order.

import { VirtualTimeScheduler } from 'rxjs';

export interface VirtualClock {
  readonly scheduler: VirtualTimeScheduler;
  readonly now: () => number;
  /** Runs every action due at or before `time`, then sets the clock to `time`. Never moves backwards. */
  advanceTo(time: number): void;
}

export function createVirtualClock(start: number): VirtualClock {
  const scheduler = new VirtualTimeScheduler();
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
