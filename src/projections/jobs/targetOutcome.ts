// What the events the service already folds say about a job's target (docs/jobs.md). Pure, in the
// decider shape: `evolveSeen` folds an agent's events into the facts a target's outcome depends on,
// and `decideObservation` says what those facts mean for one target in flight. Each replica folds
// the agents it holds and decides again whenever the target changes (its command was sent by a
// sibling, its rollout was assigned), so the replica that sees an agent come back need not be the
// one that sent its command, nor have known of the command when the agent came back.

import type { RemoteConfigStatus } from '../../events/agentData.ts';
import type { AgentEvent } from '../../events/fleetEvent.ts';
import { describeMissing, type ComponentTypes } from '../remoteConfig/componentTypes.ts';
import { rolledBackFrom } from '../remoteConfig/rollback.ts';

/** A target whose command went out or whose revision was assigned, not finished yet. */
export interface InFlightTarget {
  readonly jobId: string;
  readonly action: 'restart' | 'config_rollout';
  /**
   * Restart: when the command was sent (Unix ms; null until a replica sent it), and the health start
   * time then (0n unknown). Rollout: when the agent was first sent its revision (null until then).
   */
  readonly sentAt: number | null;
  readonly baselineStartNanos: bigint;
  /** Rollout: when the revision was assigned (Unix ms), and how long after it a disconnect counts as lost. */
  readonly assignedAt: number;
  readonly disconnectWindowMs: number;
}

/** The latest of each fact about one agent (Unix ms, or null when not seen). */
export interface SeenFacts {
  readonly connectedAt: number | null;
  /** The latest health start time reported, and when. */
  readonly startNanos: bigint | null;
  readonly startSeenAt: number | null;
  readonly report: RemoteConfigStatus | null;
  readonly reportAt: number | null;
  /** The hash the agent went back from (remoteConfig/rollback.ts), or null. */
  readonly rolledBackFrom: string | null;
  readonly unhealthyAt: number | null;
  readonly disconnectedAt: number | null;
  /** The config hash last sent to the agent, and when. */
  readonly offeredHash: string | null;
  readonly offeredAt: number | null;
}

export const nothingSeen: SeenFacts = {
  connectedAt: null,
  startNanos: null,
  startSeenAt: null,
  report: null,
  reportAt: null,
  rolledBackFrom: null,
  unhealthyAt: null,
  disconnectedAt: null,
  offeredHash: null,
  offeredAt: null,
};

/** Folds an event of the agent; the same reference when it says nothing a target depends on. */
export function evolveSeen(seen: SeenFacts, event: AgentEvent): SeenFacts {
  switch (event.type) {
    case 'AgentConnected':
      return { ...seen, connectedAt: event.at };
    case 'AgentDisconnected':
      return { ...seen, disconnectedAt: event.at };
    case 'AgentRemoteConfigOffered':
      return { ...seen, offeredHash: event.data.hash, offeredAt: event.at };
    case 'AgentRemoteConfigReported': {
      const report = event.data.status;
      const rolledBack = rolledBackFrom(seen.report, report, null, seen.rolledBackFrom);
      return { ...seen, report, reportAt: event.at, rolledBackFrom: rolledBack };
    }
    case 'AgentHealthReported': {
      const { startTimeNanos, healthy } = event.data.health;
      const started = { ...seen, startNanos: startTimeNanos, startSeenAt: event.at };
      return healthy ? started : { ...started, unhealthyAt: event.at };
    }
    default:
      return seen;
  }
}

/** What is written for a target (null: nothing new on that column). */
export interface Observation {
  readonly outcome: 'succeeded' | 'failed' | null;
  readonly reason: string;
  readonly outcomeAt: number | null;
  readonly unhealthyAt: number | null;
  readonly disconnectedAt: number | null;
  /** A rollout target was sent the config it should now run, at (the first one written stays). */
  readonly sentAt: number | null;
}

const none: Observation = {
  outcome: null,
  reason: '',
  outcomeAt: null,
  unhealthyAt: null,
  disconnectedAt: null,
  sentAt: null,
};

/**
 * A restarted agent is back when it connected again after the command, or reported a health start
 * time later than before the command and than the command itself (a plain-HTTP agent that kept
 * polling through its restart).
 */
export function restartChange(target: InFlightTarget, seen: SeenFacts): Observation | undefined {
  const sentAt = target.sentAt;
  if (sentAt === null) return undefined;
  if (seen.connectedAt !== null && seen.connectedAt > sentAt)
    return { ...none, outcome: 'succeeded', outcomeAt: seen.connectedAt };
  const start = seen.startNanos;
  if (start !== null && start > target.baselineStartNanos && start > BigInt(sentAt) * 1_000_000n)
    return { ...none, outcome: 'succeeded', outcomeAt: seen.startSeenAt };
  return undefined;
}

/**
 * A rollout target finishes when it reports the hash it should now run (its desired config, which
 * includes the new revision): APPLIED succeeds, FAILED fails, and so does going back from it to an
 * older config (rollback.ts). A target that lacks a component type the config names fails at once
 * (it is never sent the config: componentTypes.ts), as of its assignment, reason `incompatible: …`.
 * Turning unhealthy after the assignment, or disconnecting within the disconnect window after it, is
 * noted for the gates. When the agent is first sent that config is noted too: `apply_timeout` counts
 * from then (docs/jobs.md), not from the assignment, so a target is not failed for the time the
 * service took to reach it in a large stage.
 * @param missing what the agent lacks to run its desired config (undefined: nothing, or not known).
 */
export function rolloutChange(
  target: InFlightTarget,
  seen: SeenFacts,
  desiredHash: string | undefined,
  missing?: ComponentTypes,
): Observation | undefined {
  const { report, unhealthyAt, disconnectedAt } = seen;
  const after = (at: number | null) => (at !== null && at >= target.assignedAt ? at : null);
  const lost = after(disconnectedAt);
  let outcome = reportOutcome(report, seen.reportAt, desiredHash, seen.rolledBackFrom);
  if (outcome.outcome === null && missing !== undefined)
    outcome = {
      outcome: 'failed',
      reason: `incompatible: lacks ${describeMissing(missing)}`,
      outcomeAt: target.assignedAt,
    };
  const sent =
    target.sentAt === null && desiredHash !== undefined && seen.offeredHash === desiredHash
      ? after(seen.offeredAt)
      : null;
  const observed: Observation = {
    ...outcome,
    unhealthyAt: after(unhealthyAt),
    disconnectedAt: lost !== null && lost - target.assignedAt <= target.disconnectWindowMs ? lost : null,
    sentAt: sent,
  };
  const nothing =
    observed.outcome === null &&
    observed.unhealthyAt === null &&
    observed.disconnectedAt === null &&
    observed.sentAt === null;
  return nothing ? undefined : observed;
}

function reportOutcome(
  status: RemoteConfigStatus | null,
  at: number | null,
  desiredHash: string | undefined,
  rolledBack: string | null,
): Pick<Observation, 'outcome' | 'reason' | 'outcomeAt'> {
  if (status !== null && desiredHash !== undefined && rolledBack === desiredHash)
    return { outcome: 'failed', reason: `rolled back to ${status.hash || 'no config'}`, outcomeAt: at };
  if (status === null || desiredHash === undefined || status.hash !== desiredHash) return none;
  if (status.status === 'applied') return { outcome: 'succeeded', reason: 'applied', outcomeAt: at };
  if (status.status === 'failed')
    return { outcome: 'failed', reason: status.errorMessage || 'the agent reported FAILED', outcomeAt: at };
  return none;
}

/** What the facts seen of a target's agent mean for it now, or undefined when nothing. */
export const decideObservation = (
  target: InFlightTarget,
  seen: SeenFacts,
  desiredHash: string | undefined,
  missing?: ComponentTypes,
): Observation | undefined =>
  target.action === 'restart'
    ? restartChange(target, seen)
    : rolloutChange(target, seen, desiredHash, missing);
