// Yielding the event loop in the middle of a long walk: a pass over 100,000 agents done in one
// synchronous turn delays every socket and request behind it (docs/scaling.md). setImmediate runs
// after the I/O the loop has polled, so the requests and messages waiting go first.

/** Resolves after the I/O waiting now has been handled. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Items a walk handles between two turns: a few milliseconds of work each. */
export const walkSlice = 2000;
