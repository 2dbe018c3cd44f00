// When a job target in flight is late (decideStep.ts Deadline; docs/jobs.md `apply_timeout`), as
// one SQL test shared by the step's counts, the gate's list and the time-out itself, so the three
// always agree. An agent's connection is read from the session rows as a fleet list reads it
// (rule 10).

import { msTimestamp } from '../database/sql.ts';
import type { Deadline } from '../../projections/jobs/decideStep.ts';
import { connectedSql } from '../agents/filterSql.ts';

/** A step's deadline with what rule 10 needs to tell an offline agent. */
export interface Lateness extends Pick<Deadline, 'before' | 'unsentBefore'> {
  readonly now: number;
  readonly disconnectAfterMs: number;
}

/**
 * Whether target `t` (in flight) is late, with the lateness in four parameters from `$first`
 * (latenessValues' order). Never null. The session is read only for a target never sent and
 * released before `before` but not before `unsentBefore`.
 */
export function lateSql(first: number): string {
  const [before, unsentBefore, now, window] = [0, 1, 2, 3].map((i) => `$${first + i}`) as [
    string,
    string,
    string,
    string,
  ];
  return `coalesce(CASE WHEN t.sent_at IS NOT NULL THEN t.sent_at < ${msTimestamp(before)}
  ELSE t.dispatched_at < ${msTimestamp(unsentBefore)} OR (t.dispatched_at < ${msTimestamp(before)}
    AND NOT EXISTS (SELECT 1 FROM agent_session s WHERE s.instance_uid = t.instance_uid
      AND ${connectedSql(now, window)})) END, false)`;
}

export function latenessValues(l: Lateness): number[] {
  return [l.before, l.unsentBefore, l.now, l.disconnectAfterMs];
}
