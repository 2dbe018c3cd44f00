// Certificates issued per credential in the last hour, in this process (agents.ca.max_per_hour;
// decideIssue in src/projections/identity/decideCertificate.ts decides on the count). Per replica:
// with N replicas a credential may be issued up to N times the limit an hour, which still bounds it.

const hourMs = 3_600_000;
/** Credentials tracked at most before those idle for an hour are swept (bounded memory). */
const sweepAbove = 10_000;

export interface IssueRate {
  /** Certificates issued to `credential` in the hour before `now`. */
  recent(credential: string, now: number): number;
  /** One is being issued to `credential` now. */
  record(credential: string, now: number): void;
}

export function createIssueRate(): IssueRate {
  const issued = new Map<string, number[]>();
  const within = (times: readonly number[], now: number) => times.filter((t) => t > now - hourMs);
  return {
    recent(credential, now) {
      const times = issued.get(credential);
      if (times === undefined) return 0;
      const kept = within(times, now);
      if (kept.length === 0) issued.delete(credential);
      else issued.set(credential, kept);
      return kept.length;
    },
    record(credential, now) {
      if (!issued.has(credential) && issued.size >= sweepAbove)
        for (const [c, times] of issued) if (within(times, now).length === 0) issued.delete(c);
      issued.set(credential, [...(issued.get(credential) ?? []), now]);
    },
  };
}
