// The targets in flight as each replica reads them (inFlightSql's rows), and the pins of rollouts
// (pinsSql's rows), as records.

import type { ConfigRevisionData } from '../../events/configData.ts';
import type { InstanceUid } from '../../events/ids.ts';
import { parseActionSettings } from '../../projections/jobs/jobActions.ts';
import type { InFlightTarget } from '../../projections/jobs/targetOutcome.ts';

export interface Target extends InFlightTarget {
  readonly uid: InstanceUid;
  /** A restart target whose command no replica has sent yet, of a running job. */
  readonly due: boolean;
}

type Row = readonly unknown[];

/** A rollout's disconnect window from its action_config text (0 for a restart). */
function disconnectWindowOf(action: string, config: string): number {
  const settings = parseActionSettings(action, JSON.parse(config) as Record<string, unknown>);
  return settings.ok && settings.value.action === 'config_rollout' ? settings.value.disconnectWindowMs : 0;
}

/** @param windows the disconnect windows parsed so far, by action and action_config text. */
export function targetOf(row: Row, windows = new Map<string, number>()): Target {
  const [jobId, action, status, uid, sentAt, baseline, dispatchedAt, config] = row as [
    string,
    'restart' | 'config_rollout',
    string,
    InstanceUid,
    number | null,
    string,
    number | null,
    string,
  ];
  const key = `${action}\n${config}`;
  let disconnectWindowMs = windows.get(key);
  if (disconnectWindowMs === undefined)
    windows.set(key, (disconnectWindowMs = disconnectWindowOf(action, config)));
  return {
    jobId,
    action,
    uid,
    sentAt: sentAt === null ? null : Math.round(sentAt),
    baselineStartNanos: BigInt(baseline.split('.')[0] ?? '0'),
    assignedAt: Math.round(dispatchedAt ?? 0),
    due: action === 'restart' && status === 'running' && sentAt === null,
    disconnectWindowMs,
  };
}

/** The targets by agent. */
export function targetsByAgent(rows: readonly Row[]): Map<InstanceUid, Target[]> {
  const byAgent = new Map<InstanceUid, Target[]>();
  // Every target of a job has its job's action_config: parsed once per job, not once per target.
  const windows = new Map<string, number>();
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
