// Restart delivery on this replica (docs/jobs.md "Delivery"): a released restart target whose agent
// is connected here is claimed in the database (only one replica gets the row, and only while the
// job runs) and its command handed to the OpAMP side, which pushes it over a WebSocket or puts it
// in the next poll reply. A command claimed but not sent when its target stops being due (its job
// paused, cancelled or finished) is withdrawn.

import type pg from 'pg';
import type { InstanceUid } from '../../events/ids.ts';
import type { Logger } from '../../io/logger.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import { notifySql } from '../database/notifications.ts';
import { claimCommandSql } from './jobAgentsSql.ts';
import { jobsChannel } from './jobSql.ts';
import type { Target } from './jobTargetRows.ts';

export interface RestartClaimsDeps {
  readonly pool: pg.Pool;
  readonly agentHere: (uid: InstanceUid) => AgentState | undefined;
  readonly deliver: (uid: InstanceUid) => void;
  readonly withdraw: (uid: InstanceUid) => void;
  readonly now: () => number;
  readonly logger: Logger;
  /** Who claims commands (sent_by). */
  readonly replica: string;
}

export interface RestartClaims {
  /** The targets in flight now: claims the due ones held here, withdraws what is no longer due. */
  update(targets: ReadonlyMap<InstanceUid, readonly Target[]>): void;
  /** An agent connected here: claims its due targets. */
  connected(targets: readonly Target[]): void;
  /** Resolves when the claims in flight are done. */
  settled(): Promise<void>;
}

export function createRestartClaims(deps: RestartClaimsDeps): RestartClaims {
  const { pool, logger } = deps;
  /** Commands this replica claimed and handed over, by agent → job. */
  const claimed = new Map<InstanceUid, string>();
  /** Claims in flight, by job|agent. */
  const claiming = new Map<string, Promise<void>>();

  async function tryClaim(target: Target, agent: AgentState): Promise<void> {
    try {
      const baseline = agent.health?.startTimeNanos ?? 0n;
      const sql = claimCommandSql(target.jobId, target.uid, deps.replica, baseline, deps.now());
      if ((await pool.query(sql)).rowCount !== 1) return;
      claimed.set(target.uid, target.jobId);
      deps.deliver(target.uid);
      await pool.query(notifySql(jobsChannel, target.jobId));
    } catch (error) {
      logger.warn(
        { err: error, job: target.jobId, instance_uid: target.uid },
        'could not claim a restart; retried',
      );
    }
  }

  function claim(target: Target): void {
    if (!target.due) return;
    const key = `${target.jobId}|${target.uid}`;
    const agent = deps.agentHere(target.uid);
    if (agent === undefined || !agent.connected || claiming.has(key) || claimed.has(target.uid)) return;
    claiming.set(
      key,
      tryClaim(target, agent).finally(() => claiming.delete(key)),
    );
  }

  return {
    update(targets) {
      for (const [uid, jobId] of claimed) {
        const still = targets.get(uid)?.some((t) => t.jobId === jobId && t.action === 'restart');
        if (still) continue;
        claimed.delete(uid);
        deps.withdraw(uid);
      }
      for (const list of targets.values()) for (const t of list) claim(t);
    },
    connected(targets) {
      for (const t of targets) claim(t);
    },
    async settled() {
      while (claiming.size > 0) await Promise.all(claiming.values());
    },
  };
}
