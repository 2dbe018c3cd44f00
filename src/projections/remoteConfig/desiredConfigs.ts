// The fold behind the desired-config projection: the configs in force (their current revisions),
// folded from config events, and which of them target an agent. Pure: the adapter
// (desiredConfigProjection.ts) adds the per-agent memo and the interning of shared compositions.

import type { ConfigRevisionData } from '../../events/configData.ts';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { AgentState } from '../agent/agentState.ts';
import { parseSelector, selects, type Selector } from '../filter/selector.ts';
import { byName, type DesiredEntry } from './desiredConfig.ts';

export interface ConfigInForce {
  readonly config: ConfigRevisionData;
  /** Null when the selector does not parse (the edges refuse those; a stored one matches no agent). */
  readonly selector: Selector | null;
}

export interface DesiredConfigsState {
  /** Every config known, by name (disabled ones included). */
  readonly configs: ReadonlyMap<string, ConfigInForce>;
  /** The enabled ones in name order: what desired configs are made of. */
  readonly enabled: readonly ConfigInForce[];
  /** Bumped by every change that can alter an agent's desired config. */
  readonly version: number;
}

export const initialDesiredConfigs: DesiredConfigsState = {
  configs: new Map(),
  enabled: [],
  version: 0,
};

function withConfigs(state: DesiredConfigsState, configs: Map<string, ConfigInForce>): DesiredConfigsState {
  const enabled = [...configs.values()]
    .filter((c) => c.config.enabled)
    .sort((a, b) => byName(a.config, b.config));
  return { configs, enabled, version: state.version + 1 };
}

const sameContent = (a: ConfigRevisionData, b: ConfigRevisionData): boolean =>
  a.revision === b.revision &&
  a.bodyHash === b.bodyHash &&
  a.selector === b.selector &&
  a.contentType === b.contentType &&
  a.enabled === b.enabled;

/** Returns the same state for events that change nothing (and for every non-config event). */
export function evolveDesiredConfigs(state: DesiredConfigsState, event: FleetEvent): DesiredConfigsState {
  switch (event.type) {
    case 'RemoteConfigChanged': {
      const { config } = event.data;
      const known = state.configs.get(config.name);
      if (known !== undefined && sameContent(known.config, config)) return state;
      const parsed = parseSelector(config.selector);
      const configs = new Map(state.configs);
      configs.set(config.name, { config, selector: parsed.ok ? parsed.value : null });
      return withConfigs(state, configs);
    }
    case 'RemoteConfigRemoved': {
      if (!state.configs.has(event.data.name)) return state;
      const configs = new Map(state.configs);
      configs.delete(event.data.name);
      return withConfigs(state, configs);
    }
    default:
      return state;
  }
}

/** The entries of the agent's desired config, in name order (empty: none). */
export function matchingEntries(state: DesiredConfigsState, agent: AgentState): DesiredEntry[] {
  const entries: DesiredEntry[] = [];
  if (agent.description === null) return entries;
  for (const { config, selector } of state.enabled) {
    if (selector === null || !selects(selector, agent)) continue;
    entries.push({
      name: config.name,
      revision: config.revision,
      body: config.body,
      contentType: config.contentType,
    });
  }
  return entries;
}
