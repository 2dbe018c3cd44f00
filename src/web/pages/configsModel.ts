// The configs list's template locals: one row per config with the agents it targets, where the
// configs come from and whether the API can change them, and an empty state that says how to add
// one for the source in use. Pure.

import type { ConfigSource } from '../../events/configData.ts';
import type { ConfigCatalog, ConfigSummary } from '../../projections/remoteConfig/configCatalog.ts';
import { countedConfigStates, type ConfigState } from '../../projections/remoteConfig/configState.ts';
import { configView, type ConfigCounts } from '../views/configView.ts';
import { configHref } from './configStateLabels.ts';

/** The per-state columns of the list, in the order shown (configState.ts declares it). */
export const countColumns: readonly (ConfigState & keyof ConfigCounts)[] = countedConfigStates;

export interface CountCell {
  readonly state: string;
  readonly value: number;
  /** The config page with its agents filtered to this state; empty when there are none. */
  readonly href: string;
}

/** `/configs/NAME?config_state=STATE#agents`: the config's agents in one state. */
export const agentsInStateHref = (name: string, state: ConfigState | undefined): string =>
  `${configHref(name)}${state === undefined ? '' : `?config_state=${state}`}#agents`;

export function configRow(summary: ConfigSummary, counts: ConfigCounts | undefined) {
  const view = configView(summary, counts);
  return {
    ...view,
    href: configHref(view.name),
    targetedHref: view.agents.targeted > 0 ? agentsInStateHref(view.name, undefined) : '',
    cells: countColumns.map((state): CountCell => ({
      state,
      value: view.agents[state],
      href: view.agents[state] > 0 ? agentsInStateHref(view.name, state) : '',
    })),
  };
}

const sourceLabels: Readonly<Record<ConfigSource, string>> = {
  database: 'Database',
  directory: 'Directory',
  none: 'None',
};

const emptyTexts: Readonly<Record<ConfigSource, string>> = {
  database: 'Create one through the API: POST /api/configs with a name, a selector and a body.',
  directory: 'Add a NAME.yaml file with a selector and a body to the configs directory.',
  none: 'Remote configs need a source: set database.host to write them through the API, or remote_config.dir to read them from files.',
};

export function sourceLocals(catalog: Pick<ConfigCatalog, 'source' | 'readOnly'>) {
  return {
    source: catalog.source,
    label: sourceLabels[catalog.source],
    writable: catalog.readOnly === undefined,
    reason: catalog.readOnly?.reason ?? '',
    emptyText: emptyTexts[catalog.source],
  };
}
