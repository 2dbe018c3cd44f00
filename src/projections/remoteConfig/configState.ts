// Where an agent stands with its remote config (docs/remote-config.md "States"). Pure.

import type { AgentState } from '../agent/agentState.ts';
import { incompatibility } from './componentTypes.ts';
import type { DesiredConfig } from './desiredConfig.ts';

export type ConfigState =
  | 'unmanaged'
  | 'unsupported'
  | 'pending'
  | 'applying'
  | 'applied'
  | 'failed'
  | 'rolled_back'
  | 'incompatible';
export const configStates: readonly ConfigState[] = [
  'unmanaged',
  'unsupported',
  'pending',
  'applying',
  'applied',
  'failed',
  'rolled_back',
  'incompatible',
];

/** AgentCapabilities_AcceptsRemoteConfig. */
export const AcceptsRemoteConfig = 0x2n;

export const acceptsRemoteConfig = (agent: AgentState): boolean =>
  (agent.capabilities & AcceptsRemoteConfig) !== 0n;

/**
 * - unmanaged: no config targets the agent (it keeps whatever it last applied);
 * - unsupported: targeted, but the agent does not declare AcceptsRemoteConfig;
 * - pending: the agent has not acknowledged the desired hash yet;
 * - applying, applied, failed: what the agent reports for the desired hash;
 * - rolled_back: the agent took the desired hash, then went back to another (rollback.ts); the
 *   desired hash is not offered again until it changes;
 * - incompatible: the agent reported its available components and the desired config names a
 *   component type it lacks (componentTypes.ts); not offered while that holds. An agent that already
 *   reports the desired hash is shown as it reports it.
 */
export function configStateOf(agent: AgentState, desired: DesiredConfig | undefined): ConfigState {
  if (desired === undefined) return 'unmanaged';
  if (!acceptsRemoteConfig(agent)) return 'unsupported';
  if (agent.rolledBackFrom === desired.hash) return 'rolled_back';
  const reported = agent.remoteConfigStatus;
  if (reported === null || reported.hash !== desired.hash)
    return incompatibility(agent.availableComponents, desired) === undefined ? 'pending' : 'incompatible';
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
