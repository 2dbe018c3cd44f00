// Virtual time for specs: an RxJS VirtualTimeScheduler that only moves when the spec says so.

import { VirtualTimeScheduler } from 'rxjs';

export class VirtualClock {
  readonly scheduler: VirtualTimeScheduler;

  constructor(startMs = 1_700_000_000_000) {
    this.scheduler = new VirtualTimeScheduler();
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
