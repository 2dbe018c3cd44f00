// Where an agent stands with its remote config (docs/remote-config.md "States"). Pure.

import type { AgentState } from '../agent/agentState.ts';
import { incompatibility } from './componentTypes.ts';
import type { DesiredConfig } from './desiredConfig.ts';

/**
 * The states, declared once with what each means for the rest of the service, so a new state makes
 * the type checker name every place that must say how it behaves (labels, ranks, counts, history).
 * `counted`: the position of its count among a config's per-state counts (the configs list's
 * columns, the fleet history's series), or null for a state that is not one of a config's agents.
 * `rank`: ascending puts the agents that need attention first.
 */
export const configStateTable = {
  unmanaged: { counted: null, rank: 7 },
  unsupported: { counted: 6, rank: 5 },
  pending: { counted: 0, rank: 3 },
  applying: { counted: 1, rank: 4 },
  applied: { counted: 2, rank: 6 },
  failed: { counted: 3, rank: 0 },
  rolled_back: { counted: 4, rank: 1 },
  incompatible: { counted: 5, rank: 2 },
} as const satisfies Record<string, { readonly counted: number | null; readonly rank: number }>;

export type ConfigState = keyof typeof configStateTable;
export const configStates = Object.keys(configStateTable) as readonly ConfigState[];

/** The states a config's agents are counted in (every state but unmanaged). */
export type CountedConfigState = {
  [S in ConfigState]: (typeof configStateTable)[S]['counted'] extends number ? S : never;
}[ConfigState];

/** The counted states in the order their counts are shown and sampled. */
export const countedConfigStates = configStates
  .filter((s): s is CountedConfigState => configStateTable[s].counted !== null)
  .sort((a, b) => configStateTable[a].counted - configStateTable[b].counted);

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
