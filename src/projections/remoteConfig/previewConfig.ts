// What a config change would do, without doing it (POST /api/configs/preview): which agents the
// changed config would target and what each one's desired hash would become, and which agents
// would lack a component type it names (they would not be sent it: componentTypes.ts). Pure: the
// change is folded into a copy of the configs in force.

import type { ConfigRevisionData } from '../../events/configData.ts';
import type { AgentState } from '../agent/agentState.ts';
import { parseSelector, selects } from '../filter/selector.ts';
import { incompatibility, type ComponentTypes } from './componentTypes.ts';
import { composeDesired, desiredKey, type DesiredConfig } from './desiredConfig.ts';
import { evolveDesiredConfigs, matchingEntries, type DesiredConfigsState } from './desiredConfigs.ts';

export interface PreviewRow {
  readonly agent: AgentState;
  /** Whether the changed config targets the agent. */
  readonly targeted: boolean;
  readonly now: DesiredConfig | undefined;
  readonly after: DesiredConfig | undefined;
  /** What the agent lacks to run `after` (its config_state would be `incompatible`), else undefined. */
  readonly missingAfter: ComponentTypes | undefined;
}

/** Every agent the config would target, or whose desired config would change, in the given order. */
export function previewConfig(
  state: DesiredConfigsState,
  config: ConfigRevisionData,
  agents: Iterable<AgentState>,
  desiredNow: (agent: AgentState) => DesiredConfig | undefined,
): PreviewRow[] {
  const changed = evolveDesiredConfigs(state, { type: 'RemoteConfigChanged', at: 0, data: { config } });
  const selector = parseSelector(config.selector);
  const composed = new Map<string, DesiredConfig>();
  const rows: PreviewRow[] = [];
  for (const agent of agents) {
    const entries = matchingEntries(changed, agent);
    const key = desiredKey(entries);
    let after = composed.get(key);
    if (after === undefined && entries.length > 0) {
      after = composeDesired(entries)!;
      composed.set(key, after);
    }
    const now = desiredNow(agent);
    const targeted = config.enabled && selector.ok && selects(selector.value, agent);
    if (targeted || now?.hash !== after?.hash) {
      const missingAfter = after && incompatibility(agent.availableComponents, after);
      rows.push({ agent, targeted, now, after, missingAfter });
    }
  }
  return rows;
}
