// What the events the service already folds say about a job's target (docs/jobs.md). Pure: each
// replica watches the agents it holds and records outcomes; the job stepper counts them.

import type { RemoteConfigStatus } from '../../events/agentData.ts';
import type { AgentEvent } from '../../events/fleetEvent.ts';

/** A target whose command went out or whose revision was assigned, not finished yet. */
export interface InFlightTarget {
  readonly jobId: string;
  readonly action: 'restart' | 'config_rollout';
  /** Restart: when the command was sent (Unix ms), and the health start time then (0n unknown). */
  readonly sentAt: number | null;
  readonly baselineStartNanos: bigint;
  /** Rollout: when the revision was assigned (Unix ms). */
  readonly assignedAt: number;
}

export type TargetChange =
  | { readonly kind: 'succeeded' }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'unhealthy' }
  | { readonly kind: 'disconnected' };

/**
 * A restarted agent is back when it connects again after the command, or reports a later health
 * start time (a plain-HTTP agent that kept polling through its restart).
 */
export function restartChange(target: InFlightTarget, event: AgentEvent): TargetChange | undefined {
  if (target.sentAt === null) return undefined;
  if (event.type === 'AgentConnected' && event.at > target.sentAt) return { kind: 'succeeded' };
  if (event.type === 'AgentHealthReported') {
    const start = event.data.health.startTimeNanos;
    if (start > target.baselineStartNanos && start > BigInt(target.sentAt) * 1_000_000n)
      return { kind: 'succeeded' };
  }
  return undefined;
}

/**
 * A rollout target finishes when it reports the hash it should now run (its desired config, which
 * includes the new revision): APPLIED succeeds, FAILED fails. Turning unhealthy after the
 * assignment, or disconnecting within `disconnectWindowMs` of it, is recorded for the gates.
 */
export function rolloutChange(
  target: InFlightTarget,
  event: AgentEvent,
  desiredHash: string | undefined,
  disconnectWindowMs: number,
): TargetChange | undefined {
  switch (event.type) {
    case 'AgentRemoteConfigReported':
      return reportChange(event.data.status, desiredHash);
    case 'AgentHealthReported':
      return !event.data.health.healthy && event.at >= target.assignedAt ? { kind: 'unhealthy' } : undefined;
    case 'AgentDisconnected':
      return event.at >= target.assignedAt && event.at - target.assignedAt <= disconnectWindowMs
        ? { kind: 'disconnected' }
        : undefined;
    default:
      return undefined;
  }
}

function reportChange(status: RemoteConfigStatus, desiredHash: string | undefined): TargetChange | undefined {
  if (desiredHash === undefined || status.hash !== desiredHash) return undefined;
  if (status.status === 'applied') return { kind: 'succeeded' };
  if (status.status === 'failed')
    return { kind: 'failed', reason: status.errorMessage || 'the agent reported FAILED' };
  return undefined;
}
