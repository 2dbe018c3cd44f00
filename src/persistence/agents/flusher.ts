// The flush (SPEC durability rules 7, 8, 11-16): each change-tracker window, agents still in the
// registry are saved and agents no longer in it are soft-deleted, one batch per kind. The window
// carries what the soft delete needs (the registry forgets evicted agents), so the flusher reads
// this one stream. Soft deletes that went through are published as AgentsSoftDeleted.
//
// A save the agent row's guard declines writes nothing else (rule 12). When the agent's session row
// is due all the same (sessionLedger.ts), typically a disconnect, which keeps last_seen (rule 14),
// the flush writes that session row in a session write of its own, under the session row's guard,
// so siblings see the disconnect one flush later instead of when the row ages past the threshold.
// Only session rows actually written are recorded in the ledger; the refresh pass retries the rest.
//
// Contract: never two flushes at once. Marks that arrive during a flush wait for it and are then
// flushed at once. A failed or timed-out write keeps its agents marked; they are retried after
// `retryMs`, or sooner with the next window, coalesced with newer changes. stop() waits for the
// flush in flight, then flushes what is still marked once more (the change tracker delivers its
// final window when the bus completes, before stop() is called).

import type { Observable, SchedulerLike, Subscription } from 'rxjs';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { InstanceUid } from '../../events/ids.ts';
import type { Logger } from '../../io/logger.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import type { ChangeWindow, Eviction } from '../../projections/changeTracker/changeTracker.ts';
import type { Registry } from '../../projections/registry/registryProjection.ts';
import type { AgentWriter } from './agentWriter.ts';
import type { AliveTimes, SessionLedger } from './sessionLedger.ts';

export interface FlusherDeps {
  readonly windows$: Observable<ChangeWindow>;
  readonly registry: Registry;
  readonly writer: AgentWriter;
  readonly ledger: SessionLedger;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly retryMs?: number;
  /** Publishes AgentsSoftDeleted for the soft deletes that went through (the bus). Must not throw. */
  readonly publish?: (event: FleetEvent) => void;
}

export interface Flusher {
  /** Agents marked and not yet written. */
  readonly pending: number;
  /** Resolves when no flush is running (specs, benchmarks). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export function createFlusher(deps: FlusherDeps): Flusher {
  const { registry, writer, ledger, logger, scheduler } = deps;
  const retryMs = deps.retryMs ?? 5000;
  const pending = new Set<InstanceUid>();
  const evictions = new Map<InstanceUid, Eviction>();
  let running: Promise<void> | undefined;
  let retry: Subscription | undefined;
  let stopped = false;

  function kick(): void {
    if (running !== undefined || pending.size === 0) return;
    retry?.unsubscribe();
    retry = undefined;
    running = flushOnce()
      .catch((error: unknown) => logger.error({ err: error }, 'flush failed'))
      .finally(() => {
        running = undefined;
        if (stopped) return;
        if (failedLast) retry ??= scheduler.schedule(kick, retryMs);
        else kick();
      });
  }

  let failedLast = false;

  async function flushOnce(): Promise<void> {
    const batch = [...pending];
    pending.clear();
    const saves: AgentState[] = [];
    const deletes: Eviction[] = [];
    for (const uid of batch) {
      const agent = registry.get(uid);
      if (agent !== undefined) saves.push(agent);
      else {
        const eviction = evictions.get(uid);
        if (eviction !== undefined) deletes.push(eviction);
      }
    }
    const alive = ledger.aliveTimes(saves);
    const saved = await writer.saveAgents(saves, alive);
    const byUid = new Map(saves.map((a) => [a.uid as string, a]));
    const sessionsDue: AgentState[] = [];
    for (const uid of saved.done) {
      const agent = byUid.get(uid);
      evictions.delete(uid as InstanceUid);
      if (agent === undefined) continue;
      if (saved.applied.has(uid)) ledger.record(agent, alive);
      else if (ledger.isDue(agent, scheduler.now())) sessionsDue.push(agent);
    }
    if (sessionsDue.length > 0) await writeSessions(sessionsDue, byUid, alive);
    const deleted = await writer.softDeleteAgents(deletes);
    const sent = new Map<string, Eviction>(deletes.map((e) => [e.uid, e]));
    for (const uid of deleted.done) {
      // A newer eviction of the same agent that arrived meanwhile stays for the next flush.
      if (evictions.get(uid as InstanceUid) === sent.get(uid)) evictions.delete(uid as InstanceUid);
      ledger.forget(uid);
    }
    if (deleted.done.length > 0)
      deps.publish?.({
        type: 'AgentsSoftDeleted',
        at: scheduler.now(),
        data: { uids: deleted.done as InstanceUid[] },
      });
    const failed = [...saved.failed, ...deleted.failed];
    for (const uid of failed) pending.add(uid as InstanceUid);
    failedLast = failed.length > 0;
    if (failedLast) {
      logger.warn(
        { err: saved.error ?? deleted.error, agents: failed.length },
        'flush failed; agents stay marked for retry',
      );
    }
  }

  /** Session rows of agents whose save the guard declined; a failure is left to the refresh pass. */
  async function writeSessions(
    agents: AgentState[],
    byUid: ReadonlyMap<string, AgentState>,
    alive: AliveTimes,
  ): Promise<void> {
    const written = await writer.saveSessions(agents, alive);
    for (const uid of written.done) {
      const agent = byUid.get(uid);
      if (agent !== undefined) ledger.record(agent, alive);
    }
    if (written.failed.length > 0)
      logger.warn(
        { err: written.error, agents: written.failed.length },
        'session write failed; the refresh pass retries it',
      );
  }

  const subscription: Subscription = deps.windows$.subscribe((window) => {
    try {
      for (const uid of window.changed) pending.add(uid);
      for (const [uid, eviction] of window.evicted) evictions.set(uid, eviction);
      kick();
    } catch (error) {
      logger.error({ err: error }, 'flush scheduling failed');
    }
  });

  return {
    get pending() {
      return pending.size;
    },
    idle: async () => {
      while (running !== undefined) await running;
    },
    async stop(): Promise<void> {
      stopped = true;
      retry?.unsubscribe();
      subscription.unsubscribe();
      while (running !== undefined) await running;
      if (pending.size > 0)
        await flushOnce().catch((error: unknown) => logger.error({ err: error }, 'final flush failed'));
    },
  };
}
