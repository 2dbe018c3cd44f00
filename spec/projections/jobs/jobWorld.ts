// A job and its targets in memory, stepped by decideStep in virtual time: what the job stepper does
// with PostgreSQL rows (load counts, newcomers and who is behind the gates; apply joins, time-outs,
// moves and releases), done on plain data, so a spec can walk a job through its whole life and say
// when each batch or stage went out. Targets are released in uid order; a step runs when the
// previous one asked for it (nextMs), on the virtual clock.

import {
  decideStep,
  timeOutOf,
  type Deadline,
  type StepDecision,
  type StepJob,
} from '../../../src/projections/jobs/decideStep.ts';
import { parseActionSettings } from '../../../src/projections/jobs/jobActions.ts';
import type { TargetState } from '../../../src/projections/jobs/jobStore.ts';
import type { TargetCandidate } from '../../../src/projections/jobs/resolveTargets.ts';
import {
  gateAgentsKept,
  mayPassOffline,
  mayTrip,
  type StepTargets,
} from '../../../src/projections/jobs/stepTargets.ts';
import { acknowledgedOf } from '../../../src/projections/jobs/rolloutPlan.ts';
import { noTargets, type TargetCounts } from '../../../src/projections/jobs/targetCounts.ts';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import { VirtualClock } from '../../support/virtualTime.ts';

export interface WorldTarget {
  readonly uid: string;
  state: TargetState;
  stage: number | null;
  releasedAt: number | null;
  finishedAt: number | null;
  unhealthy: boolean;
  disconnected: boolean;
  /** Its agent is connected to no replica now (what the stepper reads from the session rows). */
  offline: boolean;
  /** When it was sent its revision or command: at its release, unless offline or held then. */
  sentAt: number | null;
  /** Its agent is connected, but the service has not got round to sending it (it is not sent). */
  held: boolean;
}

/** The stepper's lateSql on a world target. */
function isLate(t: WorldTarget, d: Deadline | undefined): boolean {
  if (d === undefined || t.state !== 'in_flight') return false;
  if (t.sentAt !== null) return t.sentAt < d.before;
  return t.releasedAt! < d.unsentBefore || (t.releasedAt! < d.before && t.offline);
}

export interface JobWorld {
  readonly clock: VirtualClock;
  job: StepJob;
  readonly targets: WorldTarget[];
  readonly decisions: StepDecision[];
  readonly published: FleetEvent[];
  /** Batches or stages as released: [stage, count, at offset from the start]. */
  readonly releases: [number, number, number][];
  /** Runs the steps due within `ms`. */
  advance(ms: number): void;
  /** Ends the in-flight targets of a stage (or the given ones) as `state`, now. */
  finish(state: 'succeeded' | 'failed', which?: (t: WorldTarget, i: number) => boolean): void;
  counts(): TargetCounts;
  /** Asks for a step now (a command or a target outcome does). */
  poke(): void;
  /** An operator's Resume of the paused job, as the store applies it: the gate counts now accepted. */
  resume(): void;
  /** Agents that match the job from now on besides its targets (a live job's steps see them). */
  match(agents: readonly TargetCandidate[]): void;
}

export function jobWorld(
  action: string,
  config: Record<string, unknown>,
  eligible: number,
  options: { skipped?: number; dueInMs?: number; live?: boolean } = {},
): JobWorld {
  const clock = new VirtualClock();
  const start = clock.now();
  const settings = parseActionSettings(action, config);
  const targets: WorldTarget[] = [
    ...Array.from({ length: eligible }, (_, i) => target(`a${i}`, 'pending')),
    ...Array.from({ length: options.skipped ?? 0 }, (_, i) => ({
      ...target(`s${i}`, 'skipped'),
      finishedAt: start,
    })),
  ];
  let matching: readonly TargetCandidate[] = [];
  let pending: { unsubscribe(): void } | undefined;

  function counts(): TargetCounts {
    const byState = { ...noTargets };
    for (const t of targets) byState[t.state] += 1;
    const reached = targets.filter((t) => ['in_flight', 'succeeded', 'failed'].includes(t.state));
    const deadline = settings.ok ? timeOutOf(settings.value, clock.now()) : undefined;
    return {
      byState,
      eligible: reached.length + byState.pending,
      reached: reached.length,
      failed: byState.failed,
      unhealthy: reached.filter((t) => t.unhealthy).length,
      disconnected: reached.filter((t) => t.disconnected && t.state !== 'succeeded').length,
      lastFinishedAt: Math.max(0, ...targets.map((t) => (t.state === 'skipped' ? 0 : (t.finishedAt ?? 0)))),
      late: targets.filter((t) => isLate(t, deadline)).length,
    };
  }

  /** What the stepper loads: the counts, who is behind each gate when one may trip, the newcomers. */
  function seen(counts: TargetCounts): StepTargets {
    const known = new Set(targets.map((t) => t.uid));
    const newcomers = matching.filter((a) => !known.has(a.uid));
    const deadline = settings.ok ? timeOutOf(settings.value, clock.now()) : undefined;
    const offline = mayPassOffline(world.job, settings, counts)
      ? {
          offline: targets.filter((t) => t.state === 'in_flight' && t.offline && !isLate(t, deadline)).length,
        }
      : {};
    if (!mayTrip(settings, counts)) return { counts, newcomers, ...offline };
    const reached = targets.filter((t) => ['in_flight', 'succeeded', 'failed'].includes(t.state));
    const first = (list: WorldTarget[]) =>
      list
        .map((t) => t.uid)
        .sort()
        .slice(0, gateAgentsKept);
    const behind = {
      max_failed: first(targets.filter((t) => t.state === 'failed' || isLate(t, deadline))),
      max_unhealthy: first(reached.filter((t) => t.unhealthy)),
      max_disconnected: first(reached.filter((t) => t.disconnected && t.state !== 'succeeded')),
    };
    return { counts, newcomers, behind, ...offline };
  }

  function apply(d: StepDecision, now: number): void {
    for (const j of d.joins)
      targets.push(j.eligible ? target(j.uid, 'pending') : { ...target(j.uid, 'skipped'), finishedAt: now });
    if (d.timeOut !== undefined)
      for (const t of targets) if (isLate(t, d.timeOut)) Object.assign(t, ended('failed', now));
    for (const m of d.moves)
      world.job = { ...world.job, status: m.to, ...(m.changes.stage_at && { stageAt: now }) };
    for (const r of d.releases) {
      const next = targets.filter((t) => t.state === 'pending').slice(0, r.count);
      for (const t of next)
        Object.assign(t, {
          state: 'in_flight',
          stage: r.stage,
          releasedAt: now,
          sentAt: t.offline || t.held ? null : now,
        });
      world.releases.push([r.stage, next.length, now - start]);
    }
    if (d.stage !== undefined) world.job = { ...world.job, stage: d.stage.stage, stageAt: now };
  }

  function step(): void {
    pending = undefined;
    const now = clock.now();
    const decision = decideStep(world.job, seen(counts()), settings, now);
    world.decisions.push(decision);
    apply(decision, now);
    world.published.push(...decision.events);
    if (decision.nextMs !== undefined) schedule(decision.nextMs);
  }

  function schedule(ms: number): void {
    pending?.unsubscribe();
    pending = clock.scheduler.schedule(step, ms);
  }

  const world: JobWorld = {
    clock,
    job: {
      id: 'job-1',
      status: 'armed',
      stage: 0,
      stageAt: 0,
      dueAt: start + (options.dueInMs ?? 0),
      live: options.live ?? false,
    },
    targets,
    decisions: [],
    published: [],
    releases: [],
    advance: (ms) => clock.advance(ms),
    finish(state, which = (t) => t.state === 'in_flight') {
      targets.forEach((t, i) => {
        if (t.state === 'in_flight' && which(t, i)) Object.assign(t, ended(state, clock.now()));
      });
    },
    counts,
    poke: () => schedule(0),
    resume() {
      if (world.job.status !== 'paused') throw new Error(`cannot resume a ${world.job.status} job`);
      world.job = { ...world.job, status: 'running', acknowledged: acknowledgedOf(counts()) };
      schedule(0);
    },
    match: (agents) => (matching = agents),
  };
  schedule(0);
  return world;
}

const target = (uid: string, state: TargetState): WorldTarget => ({
  uid,
  state,
  stage: null,
  releasedAt: null,
  finishedAt: null,
  unhealthy: false,
  disconnected: false,
  offline: false,
  sentAt: null,
  held: false,
});

const ended = (state: TargetState, at: number) => ({ state, finishedAt: at });
