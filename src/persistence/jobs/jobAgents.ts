// The job side of each replica (docs/jobs.md "Across replicas"): it delivers to the agents this
// replica holds what the database says they should receive, and records what their events say about
// the targets they are.
// - Restart: a released target whose agent is connected here is claimed (only one replica gets the
//   row) and its command handed to the OpAMP side, which pushes it over a WebSocket or puts it in
//   the next poll reply. A command claimed but not sent when its job stops is dropped.
// - Rollout: the reached targets of each rollout are published as RemoteConfigPinned, so the
//   desired-config projection gives them the new revision wherever they connect.
// - Outcomes: events of agents that are targets in flight (their reports, health, connects and
//   disconnects) become observations, written in batches; the touched jobs get a step at once.
// Everything is read again on every svc_jobs notification, after a reconnection and every
// `reloadMs`, so a lost notification only delays.

import type { Observable, Subscription } from 'rxjs';
import type { RemoteConfigStatus } from '../../events/agentData.ts';
import type { ConfigRevisionData } from '../../events/configData.ts';
import { isAgentEvent, type AgentEvent, type FleetEvent } from '../../events/fleetEvent.ts';
import type { InstanceUid } from '../../events/ids.ts';
import type { Logger } from '../../io/logger.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import { parseActionSettings } from '../../projections/jobs/jobActions.ts';
import { rolloutChange, type InFlightTarget } from '../../projections/jobs/targetOutcome.ts';
import type { DesiredConfig } from '../../projections/remoteConfig/desiredConfig.ts';
import type pg from 'pg';
import type { Notifications } from '../database/notifications.ts';
import { notifySql } from '../database/notifications.ts';
import {
  claimCommandSql,
  inFlightSql,
  observeTargetsSql,
  pinsSql,
  type TargetObservation,
} from './jobAgentsSql.ts';
import { jobsChannel } from './jobSql.ts';

/** What the job agents need from the OpAMP side and the registry (bound by the composition root). */
export interface JobAgentPorts {
  readonly events$: Observable<FleetEvent>;
  readonly publish: (event: FleetEvent) => void;
  /** This replica's registry: an agent connected in it is held here. */
  readonly agentHere: (uid: InstanceUid) => AgentState | undefined;
  readonly desiredFor: (agent: AgentState) => DesiredConfig | undefined;
  /** Hands a claimed restart to the OpAMP side (queue it; push it over a WebSocket). */
  readonly deliver: (uid: InstanceUid) => void;
  /** Withdraws a claimed command that has not gone out. */
  readonly withdraw: (uid: InstanceUid) => void;
}

export interface JobAgentsDeps extends JobAgentPorts {
  readonly pool: pg.Pool;
  readonly notifications: Notifications;
  readonly requestStep: (jobId: string) => Promise<void>;
  readonly now: () => number;
  readonly logger: Logger;
  /** Who claims commands (sent_by). */
  readonly replica: string;
  readonly reloadMs?: number;
  readonly flushMs?: number;
}

export interface JobAgents {
  start(): Promise<void>;
  /** Reads targets and pins again now (also what notifications and the timer do). */
  reload(): Promise<void>;
  /** Writes the observations waiting now (specs). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

interface Target extends InFlightTarget {
  readonly uid: InstanceUid;
  readonly due: boolean;
  readonly disconnectWindowMs: number;
}

type Row = readonly unknown[];

function targetOf(row: Row): Target {
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
  const settings = parseActionSettings(action, JSON.parse(config) as Record<string, unknown>);
  return {
    jobId,
    action,
    uid,
    sentAt: sentAt === null ? null : Math.round(sentAt),
    baselineStartNanos: BigInt(baseline.split('.')[0] ?? '0'),
    assignedAt: Math.round(dispatchedAt ?? 0),
    due: action === 'restart' && status === 'running' && sentAt === null,
    disconnectWindowMs:
      settings.ok && settings.value.action === 'config_rollout' ? settings.value.disconnectWindowMs : 0,
  };
}

const noObservation = {
  outcome: null,
  reason: '',
  outcomeAt: null,
  unhealthyAt: null,
  disconnectedAt: null,
  connectedAt: null,
  startedNanos: null,
  startedAt: null,
};

export function createJobAgents(deps: JobAgentsDeps): JobAgents {
  const { pool, logger } = deps;
  let targets = new Map<InstanceUid, Target[]>();
  /** Commands this replica claimed and handed over, by agent → job. */
  const claimed = new Map<InstanceUid, string>();
  const claiming = new Set<string>();
  let pinned = new Map<string, string>();
  /** The last remote-config report of rollout targets held here (re-read when pins change). */
  const reports = new Map<InstanceUid, RemoteConfigStatus>();
  let observations = new Map<string, TargetObservation>();
  let reloading: Promise<void> | undefined;
  let again = false;
  let flushing: Promise<void> | undefined;
  const timers: NodeJS.Timeout[] = [];
  const offs: (() => void)[] = [];
  let subscription: Subscription | undefined;

  function observe(target: Target, change: Partial<TargetObservation>): void {
    const key = `${target.jobId}|${target.uid}`;
    const before = observations.get(key) ?? { jobId: target.jobId, uid: target.uid, ...noObservation };
    observations.set(key, {
      ...before,
      ...Object.fromEntries(Object.entries(change).filter(([, v]) => v !== null && v !== undefined)),
    });
  }

  async function claim(target: Target): Promise<void> {
    const key = `${target.jobId}|${target.uid}`;
    const agent = deps.agentHere(target.uid);
    if (agent === undefined || !agent.connected || claiming.has(key) || claimed.has(target.uid)) return;
    claiming.add(key);
    try {
      const baseline = agent.health?.startTimeNanos ?? 0n;
      const sql = claimCommandSql(target.jobId, target.uid, deps.replica, baseline, deps.now());
      const won = (await pool.query(sql)).rowCount === 1;
      if (!won) return;
      claimed.set(target.uid, target.jobId);
      deps.deliver(target.uid);
      await pool.query(notifySql(jobsChannel, target.jobId));
    } catch (error) {
      logger.warn(
        { err: error, job: target.jobId, instance_uid: target.uid },
        'could not claim a restart; retried',
      );
    } finally {
      claiming.delete(key);
    }
  }

  function publishPins(rows: readonly Row[]): void {
    const next = new Map<string, string>();
    for (const row of rows) {
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
      const config: ConfigRevisionData = { name, revision, selector, body, contentType, enabled, bodyHash };
      const key = `${revision}:${uids.join(',')}`;
      next.set(name, key);
      if (pinned.get(name) !== key)
        deps.publish({ type: 'RemoteConfigPinned', at: deps.now(), data: { name, config, uids } });
    }
    for (const name of pinned.keys())
      if (!next.has(name))
        deps.publish({ type: 'RemoteConfigPinned', at: deps.now(), data: { name, config: null, uids: [] } });
    pinned = next;
  }

  async function reloadOnce(): Promise<void> {
    const rows = (await pool.query<unknown[]>({ ...inFlightSql(), rowMode: 'array' })).rows;
    const next = new Map<InstanceUid, Target[]>();
    for (const row of rows) {
      const t = targetOf(row);
      next.set(t.uid, [...(next.get(t.uid) ?? []), t]);
    }
    targets = next;
    publishPins((await pool.query<unknown[]>({ ...pinsSql(), rowMode: 'array' })).rows);
    for (const [uid, jobId] of claimed) {
      const still = targets.get(uid)?.some((t) => t.jobId === jobId && t.action === 'restart');
      if (!still) {
        claimed.delete(uid);
        deps.withdraw(uid);
      }
    }
    for (const list of targets.values()) for (const t of list) if (t.due) void claim(t);
    for (const [uid, status] of reports) {
      if (!targets.has(uid)) reports.delete(uid);
      else judgeReport(uid, status);
    }
  }

  function reload(): Promise<void> {
    if (reloading !== undefined) {
      again = true;
      return reloading;
    }
    reloading = reloadOnce()
      .catch((error: unknown) => logger.warn({ err: error }, 'job targets could not be read; retried'))
      .finally(() => {
        reloading = undefined;
        if (again) {
          again = false;
          void reload();
        }
      });
    return reloading;
  }

  function judgeReport(uid: InstanceUid, status: RemoteConfigStatus): void {
    const agent = deps.agentHere(uid);
    const desired = agent && deps.desiredFor(agent)?.hash;
    for (const t of targets.get(uid) ?? []) {
      if (t.action !== 'config_rollout') continue;
      const event: AgentEvent = { type: 'AgentRemoteConfigReported', at: deps.now(), data: { uid, status } };
      const change = rolloutChange(t, event, desired, t.disconnectWindowMs);
      if (change?.kind === 'succeeded')
        observe(t, { outcome: 'succeeded', reason: 'applied', outcomeAt: event.at });
      if (change?.kind === 'failed')
        observe(t, { outcome: 'failed', reason: change.reason, outcomeAt: event.at });
    }
  }

  function onEvent(event: FleetEvent): void {
    if (!isAgentEvent(event)) return;
    const uid = event.data.uid;
    const list = targets.get(uid);
    if (list === undefined) return;
    if (event.type === 'AgentRemoteConfigReported') {
      reports.set(uid, event.data.status);
      judgeReport(uid, event.data.status);
      return;
    }
    for (const t of list) {
      if (t.action === 'restart') {
        if (event.type === 'AgentConnected') {
          observe(t, { connectedAt: event.at });
          if (t.due) void claim(t);
        } else if (event.type === 'AgentHealthReported')
          observe(t, { startedNanos: event.data.health.startTimeNanos, startedAt: event.at });
        continue;
      }
      const change = rolloutChange(t, event, undefined, t.disconnectWindowMs);
      if (change?.kind === 'unhealthy') observe(t, { unhealthyAt: event.at });
      if (change?.kind === 'disconnected') observe(t, { disconnectedAt: event.at });
    }
  }

  async function flushOnce(): Promise<void> {
    if (observations.size === 0) return;
    const batch = [...observations.values()];
    observations = new Map();
    try {
      const touched = new Set(
        (await pool.query<[string]>({ ...observeTargetsSql(batch), rowMode: 'array' })).rows.map((r) => r[0]),
      );
      for (const jobId of touched) {
        await pool.query(notifySql(jobsChannel, jobId));
        await deps.requestStep(jobId);
      }
    } catch (error) {
      // Keep them for the next flush (newer observations of the same target win).
      for (const o of batch) {
        const key = `${o.jobId}|${o.uid}`;
        if (!observations.has(key)) observations.set(key, o);
      }
      logger.warn({ err: error, targets: batch.length }, 'job target outcomes could not be written; retried');
    }
  }

  function flush(): Promise<void> {
    flushing ??= flushOnce().finally(() => {
      flushing = undefined;
    });
    return flushing;
  }

  return {
    async start() {
      subscription = deps.events$.subscribe((event) => {
        try {
          onEvent(event);
        } catch (error) {
          logger.error({ err: error }, 'job target watch failed');
        }
      });
      offs.push(deps.notifications.on(jobsChannel, () => void reload()));
      offs.push(deps.notifications.onConnected(() => void reload()));
      await reload();
      timers.push(setInterval(() => void reload(), deps.reloadMs ?? 2000));
      timers.push(setInterval(() => void flush(), deps.flushMs ?? 200));
      for (const t of timers) t.unref();
    },
    reload,
    flush,
    async stop() {
      subscription?.unsubscribe();
      for (const off of offs) off();
      for (const t of timers) clearInterval(t);
      await flush();
      while (reloading !== undefined) await reloading;
    },
  };
}
