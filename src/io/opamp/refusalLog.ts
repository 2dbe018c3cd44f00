// One log line per refusal of the OpAMP listener, with the reason and the remote address and never
// the credential (docs/security.md). A client refused thousands of times a second (one connection
// claiming 5,000 ids) must not flood the log: each reason logs at most once per interval, and the
// next line says how many of its refusals were not logged since. The counter
// svc_opamp_refused_total counts them all, and each line left out is counted by `onSuppressed`
// (svc_log_lines_suppressed_total).

import type { Logger } from '../logger.ts';

export interface RefusalLog {
  refused(reason: string, remoteAddr: string): void;
}

export function createRefusalLog(
  logger: Logger,
  now: () => number,
  intervalMs = 10_000,
  onSuppressed?: () => void,
): RefusalLog {
  /** Per reason (a small fixed set): when it was last logged, and refusals not logged since. */
  const last = new Map<string, { at: number; unlogged: number }>();
  return {
    refused(reason, remoteAddr) {
      const at = now();
      const seen = last.get(reason);
      if (seen !== undefined && at - seen.at < intervalMs) {
        seen.unlogged++;
        onSuppressed?.();
        return;
      }
      const unlogged = seen?.unlogged ?? 0;
      logger.warn({ reason, remoteAddr, ...(unlogged > 0 ? { unlogged } : {}) }, 'opamp refused');
      last.set(reason, { at, unlogged: 0 });
    },
  };
}
