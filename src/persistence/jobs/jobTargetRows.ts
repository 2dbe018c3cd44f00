// The targets in flight as each replica reads them (inFlightSql's rows), and the pins of rollouts
// (pinsSql's rows), as records.

import type { ConfigRevisionData } from '../../events/configData.ts';
import type { InstanceUid } from '../../events/ids.ts';
import { disconnectWindowMs } from '../../projections/jobs/jobActions.ts';
import type { InFlightTarget } from '../../projections/jobs/targetOutcome.ts';

export interface Target extends InFlightTarget {
  readonly uid: InstanceUid;
  /** A restart target whose command no replica has sent yet, of a running job. */
  readonly due: boolean;
}

type Row = readonly unknown[];

/** @param windows the disconnect windows parsed so far, by their action_config value. */
export function targetOf(row: Row, windows = new Map<unknown, number>()): Target {
  const [jobId, action, status, uid, sentAt, baseline, dispatchedAt, window] = row as [
    string,
    'restart' | 'config_rollout',
    string,
    InstanceUid,
    number | null,
    string,
    number | null,
    unknown,
  ];
  let disconnectWindow = 0;
  if (action === 'config_rollout') {
    const known = windows.get(window);
    if (known === undefined) windows.set(window, (disconnectWindow = disconnectWindowMs(window)));
    else disconnectWindow = known;
  }
  return {
    jobId,
    action,
    uid,
    sentAt: sentAt === null ? null : Math.round(sentAt),
    baselineStartNanos: BigInt(baseline.split('.')[0] ?? '0'),
    assignedAt: Math.round(dispatchedAt ?? 0),
    due: action === 'restart' && status === 'running' && sentAt === null,
    disconnectWindowMs: disconnectWindow,
  };
}

/** The targets by agent. */
export function targetsByAgent(rows: readonly Row[]): Map<InstanceUid, Target[]> {
  const byAgent = new Map<InstanceUid, Target[]>();
  // A job's targets share its disconnect window: parsed once per value, not once per target.
  const windows = new Map<unknown, number>();
  for (const row of rows) {
    const t = targetOf(row, windows);
    const list = byAgent.get(t.uid);
    if (list === undefined) byAgent.set(t.uid, [t]);
    else list.push(t);
  }
  return byAgent;
}

export interface Pin {
  readonly config: ConfigRevisionData;
  readonly uids: readonly InstanceUid[];
}

export function pinOf(row: Row): Pin {
  const [name, revision, selector, body, contentType, enabled, bodyHash, uids] = row as [
    string,
    number,
    string,
    string,
    string,
    boolean,
    string,
    InstanceUid[],
  ];
  return { config: { name, revision, selector, body, contentType, enabled, bodyHash }, uids };
}
