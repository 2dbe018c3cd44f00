// The job side of each replica (docs/jobs.md "Across replicas"), split by job: restart claims
// deliver commands to the agents this replica holds (restartClaims.ts), rollout pins tell the
// desired-config projection which agents get a new revision (rolloutPins.ts), and the target
// observer records what the agents' events say about the targets they are (targetObserver.ts).
// This module reads what they work from: the targets in flight and the pins, on every svc_jobs
// notification, after a reconnection and every `reloadMs` on the injected scheduler, so a lost
// notification only delays. Guarded: never two reads at once; one asked for meanwhile runs after.

import type { Observable, SchedulerLike, Subscription } from 'rxjs';
import { isAgentEvent, type FleetEvent } from '../../events/fleetEvent.ts';
import type { InstanceUid } from '../../events/ids.ts';
import type { Logger } from '../../io/logger.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import type { DesiredConfig } from '../../projections/remoteConfig/desiredConfig.ts';
import type pg from 'pg';
import type { Notifications } from '../database/notifications.ts';
import type { Sql } from '../database/sql.ts';
import { inFlightSql, pinsSql, pinsVersionSql } from './jobAgentsSql.ts';
import { jobsChannel } from './jobSql.ts';
import { pinOf, targetsByAgent, type Target } from './jobTargetRows.ts';
import { createRestartClaims } from './restartClaims.ts';
import { createRolloutPins } from './rolloutPins.ts';
import { createTargetObserver } from './targetObserver.ts';

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
  readonly scheduler: SchedulerLike;
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

/** Every how many reads of the targets each one is judged again whatever changed. */
const fullEvery = 5;

const rowsOf = async (pool: pg.Pool, sql: Sql) =>
  (await pool.query<unknown[]>({ ...sql, rowMode: 'array' })).rows;

export function createJobAgents(deps: JobAgentsDeps): JobAgents {
  const { pool, logger, scheduler } = deps;
  const now = () => scheduler.now();
  const claims = createRestartClaims({ ...deps, now });
  const pins = createRolloutPins(deps.publish, now);
  const observer = createTargetObserver(deps);
  let targets: ReadonlyMap<InstanceUid, readonly Target[]> = new Map();
  let reloading: Promise<void> | undefined;
  let again = false;
  let timer: Subscription | undefined;
  let subscription: Subscription | undefined;
  const offs: (() => void)[] = [];

  /** Whether what an agent should run may have changed since the observer last judged every target. */
  let desiredChanged = true;
  let reloads = 0;
  /** What the pins last read depended on (pinsVersionSql); undefined before the first read. */
  let pinsVersion: unknown;

  async function reloadOnce(): Promise<void> {
    const full = reloads++ % fullEvery === 0;
    targets = targetsByAgent(await rowsOf(pool, inFlightSql()));
    // Pins first: the observer judges reports against the desired hash they make. They are read
    // again only when what they depend on changed (or on a full read), not every reloadMs: at a
    // rollout of 100,000 they are one array of 100,000 ids.
    const [[version] = []] = await rowsOf(pool, pinsVersionSql());
    if (full || version !== pinsVersion) {
      pins.update((await rowsOf(pool, pinsSql())).map(pinOf));
      pinsVersion = version;
    }
    claims.update(targets);
    // Every target is judged again when a pin or a config changed (seen on the bus), and on every
    // fullEvery-th read besides (an agent's description can change what it should run); otherwise
    // only the targets that are new or whose row changed, so a stage of 50,000 is not judged again
    // every reloadMs.
    const all = desiredChanged || full;
    desiredChanged = false;
    await observer.update(targets, all);
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

  function onEvent(event: FleetEvent): void {
    if (!isAgentEvent(event)) {
      if (
        event.type === 'RemoteConfigPinned' ||
        event.type === 'RemoteConfigChanged' ||
        event.type === 'RemoteConfigRemoved'
      )
        desiredChanged = true;
      return;
    }
    const list = targets.get(event.data.uid);
    if (list === undefined) return;
    if (event.type === 'AgentConnected') claims.connected(list);
    observer.observe(event, list);
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
      const reloadMs = deps.reloadMs ?? 2000;
      timer = scheduler.schedule(function tick() {
        void reload();
        this.schedule(undefined, reloadMs);
      }, reloadMs);
    },
    reload,
    flush: () => observer.flush(),
    async stop() {
      subscription?.unsubscribe();
      for (const off of offs) off();
      timer?.unsubscribe();
      await observer.stop();
      while (reloading !== undefined) await reloading;
      await claims.settled();
    },
  };
}
