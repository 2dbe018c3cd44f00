// Where an agent stands with its remote config (docs/remote-config.md "States"). Pure.

import type { AgentState } from '../agent/agentState.ts';
import type { DesiredConfig } from './desiredConfig.ts';

export type ConfigState = 'unmanaged' | 'unsupported' | 'pending' | 'applying' | 'applied' | 'failed';
export const configStates: readonly ConfigState[] = [
  'unmanaged',
  'unsupported',
  'pending',
  'applying',
  'applied',
  'failed',
];

/** AgentCapabilities_AcceptsRemoteConfig. */
export const AcceptsRemoteConfig = 0x2n;

export const acceptsRemoteConfig = (agent: AgentState): boolean =>
  (agent.capabilities & AcceptsRemoteConfig) !== 0n;

/**
 * - unmanaged: no config targets the agent (it keeps whatever it last applied);
 * - unsupported: targeted, but the agent does not declare AcceptsRemoteConfig;
 * - pending: the agent has not acknowledged the desired hash yet;
 * - applying, applied, failed: what the agent reports for the desired hash.
 */
export function configStateOf(agent: AgentState, desired: DesiredConfig | undefined): ConfigState {
  if (desired === undefined) return 'unmanaged';
  if (!acceptsRemoteConfig(agent)) return 'unsupported';
  const reported = agent.remoteConfigStatus;
  if (reported === null || reported.hash !== desired.hash) return 'pending';
  switch (reported.status) {
    case 'applying':
      return 'applying';
    case 'applied':
      return 'applied';
    case 'failed':
      return 'failed';
    case 'unset':
      return 'pending';
    default: {
      const _exhaustive: never = reported.status;
      return 'pending';
    }
  }
}

/** True when no config targets the agent but it still runs one the service sent earlier. */
export const keepsLastApplied = (agent: AgentState, desired: DesiredConfig | undefined): boolean =>
  desired === undefined && (agent.remoteConfigStatus?.hash ?? '') !== '';
