// Which agents a job acts on (docs/jobs.md "Targets"): the agents its filter matches, and for a
// rollout only those the rolled-out revision's selector targets. Agents that cannot take the action
// (no AcceptsRestartCommand, no AcceptsRemoteConfig) are targets too, skipped with the reason. Pure.

import type { AgentState } from '../agent/agentState.ts';
import { parseSelector, selects } from '../filter/selector.ts';
import { AcceptsRemoteConfig } from '../remoteConfig/configState.ts';
import type { ActionSettings } from './jobActions.ts';

/** AgentCapabilities_AcceptsRestartCommand. */
const AcceptsRestartCommand = 0x400n;

export interface TargetCandidate {
  readonly uid: string;
  readonly eligible: boolean;
  readonly reason: string;
}

/**
 * `agents` are those the job's filter matched; `rolloutSelector` is the selector of the revision a
 * rollout moves to (agents it does not target are not targets).
 */
export function resolveTargets(
  agents: Iterable<AgentState>,
  settings: ActionSettings,
  rolloutSelector?: string,
): TargetCandidate[] {
  const out: TargetCandidate[] = [];
  if (settings.action === 'restart') {
    for (const a of agents) {
      const capable = (a.capabilities & AcceptsRestartCommand) !== 0n;
      out.push({
        uid: a.uid,
        eligible: capable,
        reason: capable ? '' : 'the agent does not accept restart commands',
      });
    }
    return out;
  }
  const selector = parseSelector(rolloutSelector ?? '');
  if (!selector.ok) return out;
  for (const a of agents) {
    if (!selects(selector.value, a)) continue;
    const capable = (a.capabilities & AcceptsRemoteConfig) !== 0n;
    out.push({
      uid: a.uid,
      eligible: capable,
      reason: capable ? '' : 'the agent does not accept remote config',
    });
  }
  return out;
}
