// How fast a restart job sends its commands (docs/jobs.md): in batches that start at one target and
// double after each batch, up to action_config.batch_size, so a fleet never restarts all at once
// unless asked. The next batch goes out when every target of the previous one has come back or
// timed out, and after a wait that backs off (1 s, 2 s, 4 s, …) up to action_config.backoff_cap.
// Pure.

import { resolveAmount, type Amount } from './amount.ts';

export function restartBatchSize(batchesSent: number, cap: Amount, total: number): number {
  const limit = Math.max(1, resolveAmount(cap, total));
  return Math.min(limit, 2 ** Math.min(batchesSent, 30));
}

const firstWaitMs = 1000;

/** The wait before the next batch once `batchesSent` batches have finished; none before the first. */
export function restartWaitMs(batchesSent: number, backoffCapMs: number): number {
  if (batchesSent <= 0) return 0;
  return Math.min(backoffCapMs, firstWaitMs * 2 ** Math.min(batchesSent - 1, 30));
}
