// Target outcomes seen on this replica (docs/jobs.md "Outcomes"): the events of agents that are
// targets in flight are folded into what was seen of each (evolveSeen), and what that means for
// each target (decideObservation) is written in batches every `flushMs` on the injected scheduler;
// the touched jobs get a step at once. Decided again when the targets are read again, so a command
// a sibling sent, or a pin that changed the agent's desired hash, is judged against what was seen.

import type pg from 'pg';
import type { SchedulerLike, Subscription } from 'rxjs';
import type { AgentEvent } from '../../events/fleetEvent.ts';
import type { InstanceUid } from '../../events/ids.ts';
import type { Logger } from '../../io/logger.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import {
  decideObservation,
  evolveSeen,
  nothingSeen,
  type Observation,
  type SeenFacts,
} from '../../projections/jobs/targetOutcome.ts';
import { incompatibility } from '../../projections/remoteConfig/componentTypes.ts';
import type { DesiredConfig } from '../../projections/remoteConfig/desiredConfig.ts';
import { nextTurn, walkSlice } from '../../io/nextTurn.ts';
import { observeTargetsSql, type TargetObservation } from './jobAgentsSql.ts';
import type { Target } from './jobTargetRows.ts';

export interface TargetObserverDeps {
  readonly pool: pg.Pool;
  readonly scheduler: SchedulerLike;
  readonly agentHere: (uid: InstanceUid) => AgentState | undefined;
  readonly desiredFor: (agent: AgentState) => DesiredConfig | undefined;
  readonly requestStep: (jobId: string) => Promise<void>;
  readonly logger: Logger;
  readonly flushMs?: number;
}

export interface TargetObserver {
  /**
   * The targets in flight now. Only the targets that are new or whose row changed are decided again,
   * unless `all` (what an agent should run may have changed: a pin or a config did). Yields the
   * event loop every walkSlice agents; a large set of targets finishes after it resolves.
   */
  update(targets: ReadonlyMap<InstanceUid, readonly Target[]>, all?: boolean): Promise<void>;
  /** An event of an agent that is a target in flight. */
  observe(event: AgentEvent, targets: readonly Target[]): void;
  /** Writes the observations waiting now (also what the timer does). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The first outcome seen of a target is the one written, however the events fall into batches: the
 * database keeps the first written (an outcome ends the target), so a FAILED report followed by the
 * agent's going back to its old config within one flush must not turn the agent's own reason into
 * "rolled back to …" only because the machine was slow.
 */
function firstOutcome(waiting: TargetObservation | undefined, next: Observation): Observation {
  if (waiting === undefined || waiting.outcome === null || next.outcome === null) return next;
  return { ...next, outcome: waiting.outcome, reason: waiting.reason, outcomeAt: waiting.outcomeAt };
}

/** The same target row, as far as its decision goes. */
const sameTarget = (a: Target, b: Target): boolean =>
  a.sentAt === b.sentAt &&
  a.assignedAt === b.assignedAt &&
  a.baselineStartNanos === b.baselineStartNanos &&
  a.disconnectWindowMs === b.disconnectWindowMs &&
  a.action === b.action;

export function createTargetObserver(deps: TargetObserverDeps): TargetObserver {
  const { pool, logger, scheduler } = deps;
  const seen = new Map<InstanceUid, SeenFacts>();
  /** What was last decided per job|agent, so a target is written again only when it changed. */
  const decided = new Map<string, string>();
  /** The targets as last read, per job|agent: one whose row is the same need not be decided again. */
  let known = new Map<string, Target>();
  let waiting = new Map<string, TargetObservation>();
  let flushing: Promise<void> | undefined;

  function decide(target: Target): void {
    const agent = deps.agentHere(target.uid);
    // An agent here may have said nothing since its target was released: it can still be incompatible.
    const facts = seen.get(target.uid) ?? (agent === undefined ? undefined : nothingSeen);
    if (facts === undefined) return;
    const desired = agent && deps.desiredFor(agent);
    const missing = agent && desired && incompatibility(agent.availableComponents, desired);
    const observation = decideObservation(target, facts, desired?.hash, missing);
    if (observation === undefined) return;
    const key = `${target.jobId}|${target.uid}`;
    const text = JSON.stringify(observation);
    if (decided.get(key) === text) return;
    decided.set(key, text);
    waiting.set(key, {
      jobId: target.jobId,
      uid: target.uid,
      ...firstOutcome(waiting.get(key), observation),
    });
  }

  async function flushOnce(): Promise<void> {
    if (waiting.size === 0) return;
    const batch = [...waiting.values()];
    waiting = new Map();
    try {
      const sql = observeTargetsSql(batch);
      const touched = new Set(
        (await pool.query<[string | null]>({ ...sql, rowMode: 'array' })).rows.flatMap((r) =>
          r[0] === null ? [] : [r[0]],
        ),
      );
      // No NOTIFY: an outcome changes no sibling's work (the targets it watches are its own
      // agents'), and each one made every replica read all targets in flight again, every 200 ms
      // through a large stage. The step asked for here notifies when it changes anything.
      for (const jobId of touched) await deps.requestStep(jobId);
    } catch (error) {
      // Kept for the next flush (newer observations of the same target win).
      for (const o of batch) {
        const key = `${o.jobId}|${o.uid}`;
        if (!waiting.has(key)) waiting.set(key, o);
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

  const flushMs = deps.flushMs ?? 200;
  const timer: Subscription = scheduler.schedule(function tick() {
    void flush();
    this.schedule(undefined, flushMs);
  }, flushMs);

  return {
    async update(targets, all = true) {
      for (const uid of seen.keys()) if (!targets.has(uid)) seen.delete(uid);
      const live = new Map<string, Target>();
      // `targets` is never changed once read (a reload makes a new map), so the walk may yield the
      // event loop every walkSlice agents: through a stage of 50,000 one walk took up to 260 ms.
      let agents = 0;
      for (const list of targets.values()) {
        if (++agents % walkSlice === 0) await nextTurn();
        for (const t of list) {
          const key = `${t.jobId}|${t.uid}`;
          live.set(key, t);
          const before = known.get(key);
          if (all || before === undefined || !sameTarget(before, t)) decide(t);
        }
      }
      known = live;
      for (const key of decided.keys()) if (!live.has(key)) decided.delete(key);
    },
    observe(event, targets) {
      const before = seen.get(event.data.uid) ?? nothingSeen;
      const after = evolveSeen(before, event);
      if (after === before) return;
      seen.set(event.data.uid, after);
      for (const t of targets) decide(t);
    },
    flush,
    async stop() {
      timer.unsubscribe();
      await flush();
    },
  };
}
