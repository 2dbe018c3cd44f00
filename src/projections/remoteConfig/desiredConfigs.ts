// The fold behind the desired-config projection: the configs in force (their current revisions),
// folded from config events, and which of them target an agent. Pure: the adapter
// (desiredConfigProjection.ts) adds the per-agent memo and the interning of shared compositions.

import type { ConfigRevisionData } from '../../events/configData.ts';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { AgentState } from '../agent/agentState.ts';
import { parseSelector, selects, type Selector } from '../filter/selector.ts';
import type { DesiredEntry } from './desiredConfig.ts';

export interface ConfigInForce {
  readonly config: ConfigRevisionData;
  /** Null when the selector does not parse (the edges refuse those; a stored one matches no agent). */
  readonly selector: Selector | null;
}

/** A revision given to some agents instead of the current one (a rollout's reached targets). */
export interface Pin extends ConfigInForce {
  readonly uids: ReadonlySet<string>;
}

export interface DesiredConfigsState {
  /** Every config known, by name (disabled ones included). */
  readonly configs: ReadonlyMap<string, ConfigInForce>;
  readonly pins: ReadonlyMap<string, Pin>;
  /** Names of every config that may reach an agent (enabled, or pinned), in name order. */
  readonly names: readonly string[];
  /** Bumped by every change that can alter an agent's desired config. */
  readonly version: number;
}

export const initialDesiredConfigs: DesiredConfigsState = {
  configs: new Map(),
  pins: new Map(),
  names: [],
  version: 0,
};

function next(
  state: DesiredConfigsState,
  configs: ReadonlyMap<string, ConfigInForce>,
  pins: ReadonlyMap<string, Pin>,
): DesiredConfigsState {
  const names = new Set([...configs.values()].filter((c) => c.config.enabled).map((c) => c.config.name));
  for (const name of pins.keys()) names.add(name);
  return { configs, pins, names: [...names].sort(), version: state.version + 1 };
}

function inForce(config: ConfigRevisionData): ConfigInForce {
  const parsed = parseSelector(config.selector);
  return { config, selector: parsed.ok ? parsed.value : null };
}

const sameContent = (a: ConfigRevisionData, b: ConfigRevisionData): boolean =>
  a.revision === b.revision &&
  a.bodyHash === b.bodyHash &&
  a.selector === b.selector &&
  a.contentType === b.contentType &&
  a.enabled === b.enabled;

const sameSet = (a: ReadonlySet<string>, b: readonly string[]): boolean =>
  a.size === b.length && b.every((uid) => a.has(uid));

/** Returns the same state for events that change nothing (and for every non-config event). */
export function evolveDesiredConfigs(state: DesiredConfigsState, event: FleetEvent): DesiredConfigsState {
  switch (event.type) {
    case 'RemoteConfigChanged': {
      const { config } = event.data;
      const known = state.configs.get(config.name);
      if (known !== undefined && sameContent(known.config, config)) return state;
      const configs = new Map(state.configs);
      configs.set(config.name, inForce(config));
      return next(state, configs, state.pins);
    }
    case 'RemoteConfigRemoved': {
      if (!state.configs.has(event.data.name)) return state;
      const configs = new Map(state.configs);
      configs.delete(event.data.name);
      return next(state, configs, state.pins);
    }
    case 'RemoteConfigPinned': {
      const { name, config, uids } = event.data;
      const known = state.pins.get(name);
      if (config === null || uids.length === 0) {
        if (known === undefined) return state;
        const pins = new Map(state.pins);
        pins.delete(name);
        return next(state, state.configs, pins);
      }
      if (known !== undefined && sameContent(known.config, config) && sameSet(known.uids, uids)) return state;
      const pins = new Map(state.pins);
      pins.set(name, { ...inForce(config), uids: new Set(uids) });
      return next(state, state.configs, pins);
    }
    default:
      return state;
  }
}

/**
 * The entries of the agent's desired config, in name order (empty: none). A pinned agent gets the
 * pinned revision of that config (subject to that revision's own selector and enabled flag).
 */
export function matchingEntries(state: DesiredConfigsState, agent: AgentState): DesiredEntry[] {
  const entries: DesiredEntry[] = [];
  if (agent.description === null) return entries;
  for (const name of state.names) {
    const pin = state.pins.get(name);
    const chosen = pin !== undefined && pin.uids.has(agent.uid) ? pin : state.configs.get(name);
    if (chosen === undefined) continue;
    const { config, selector } = chosen;
    if (!config.enabled || selector === null || !selects(selector, agent)) continue;
    entries.push({
      name: config.name,
      revision: config.revision,
      body: config.body,
      contentType: config.contentType,
    });
  }
  return entries;
}
