// How fast a restart job sends its commands (docs/jobs.md): in batches that start at one target and
// double after each batch, up to action_config.backoff_cap, so a fleet never restarts all at once
// unless the cap asks for it. The next batch goes out when every target of the previous one has
// come back or timed out. Pure.

import { resolveAmount, type Amount } from './amount.ts';

export function restartBatchSize(batchesSent: number, cap: Amount, total: number): number {
  const limit = Math.max(1, resolveAmount(cap, total));
  return Math.min(limit, 2 ** Math.min(batchesSent, 30));
}
