// The agents a config targets, with where each stands, for the config page's polled fragment:
// agents that need attention first (failed, pending, applying, unsupported, then applied), then by
// name; optionally only those in one state. The counts are those of the configs list. Pure.

import type { AgentState } from '../../projections/agent/agentState.ts';
import { configStateOf, type ConfigState } from '../../projections/remoteConfig/configState.ts';
import type { DesiredConfig } from '../../projections/remoteConfig/desiredConfig.ts';
import { displayName } from '../views/agentView.ts';
import { configStateLabels, configStateRank } from './configStateLabels.ts';
import { agentHref } from './fleetModel.ts';
import { shortId } from './format.ts';
import { compareText } from './collate.ts';

export interface ConfigAgentRow {
  readonly uid: string;
  readonly shortId: string;
  readonly href: string;
  readonly name: string;
  readonly connected: boolean;
  readonly state: ConfigState;
  readonly stateLabel: string;
  /** The revision of this config the agent should run. */
  readonly revision: number;
  readonly desiredHash: string;
  readonly reportedHash: string;
  readonly errorMessage: string;
}

export function configAgentRows(
  name: string,
  agents: Iterable<AgentState>,
  desiredFor: (agent: AgentState) => DesiredConfig | undefined,
  only: ConfigState | undefined,
): ConfigAgentRow[] {
  const rows: ConfigAgentRow[] = [];
  for (const agent of agents) {
    const desired = desiredFor(agent);
    const entry = desired?.entries.find((e) => e.name === name);
    if (desired === undefined || entry === undefined) continue;
    const state = configStateOf(agent, desired);
    if (only !== undefined && state !== only) continue;
    rows.push({
      uid: agent.uid,
      shortId: shortId(agent.uid),
      href: agentHref(agent.uid),
      name: displayName(agent),
      connected: agent.connected,
      state,
      stateLabel: configStateLabels[state],
      revision: entry.revision,
      desiredHash: desired.hash,
      reportedHash: agent.remoteConfigStatus?.hash ?? '',
      errorMessage: agent.remoteConfigStatus?.errorMessage ?? '',
    });
  }
  return rows.sort(
    (a, b) =>
      configStateRank[a.state] - configStateRank[b.state] ||
      compareText(a.name, b.name) ||
      (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0),
  );
}
