// How the pages name and order remote config states (docs/remote-config.md "States"). The badge
// classes are prefixed (`cfg-…`) so they never collide with the agent status badges.

import {
  configStateTable,
  configStates,
  type ConfigState,
} from '../../projections/remoteConfig/configState.ts';

export const configStateLabels: Readonly<Record<ConfigState, string>> = {
  unmanaged: 'Unmanaged',
  unsupported: 'Unsupported',
  pending: 'Pending',
  applying: 'Applying',
  applied: 'Applied',
  failed: 'Failed',
  rolled_back: 'Rolled back',
  incompatible: 'Incompatible',
};

/** Ascending puts the agents that need attention first (configState.ts declares it). */
export const configStateRank: Readonly<Record<ConfigState, number>> = Object.fromEntries(
  configStates.map((s) => [s, configStateTable[s].rank]),
) as Record<ConfigState, number>;

export const configBadge = (state: ConfigState) => ({
  class: `cfg-${state}`,
  label: configStateLabels[state],
});

export const configHref = (name: string): string => `/configs/${encodeURIComponent(name)}`;

/** The page that shows what restoring a revision changes, then restores it (configRestore.ts). */
export const restoreUrl = (name: string, revision: number): string =>
  `${configHref(name)}/revisions/${revision}/restore`;
