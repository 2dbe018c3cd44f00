// JSON views of remote configs and their revisions (docs/remote-config.md "API"), and the agent counts
// per config the lists show. Pure.

import type { ConfigRevisionRecord } from '../../events/configData.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import type { ConfigProblem, ConfigSummary } from '../../projections/remoteConfig/configCatalog.ts';
import {
  configStateOf,
  countedConfigStates,
  type ConfigState,
  type CountedConfigState,
} from '../../projections/remoteConfig/configState.ts';
import type { DesiredConfig } from '../../projections/remoteConfig/desiredConfig.ts';
import { rfc3339FromMs } from './time.ts';

/** Agents whose desired config includes this config (targeted), and how many in each counted state. */
export type ConfigCounts = { targeted: number } & Record<CountedConfigState, number>;

const noAgents = (): ConfigCounts =>
  ({
    targeted: 0,
    ...Object.fromEntries(countedConfigStates.map((s) => [s, 0])),
  }) as ConfigCounts;

/**
 * One pass over the fleet: per config name, the agents it targets and where they stand. An agent's
 * state concerns its whole desired config, so it counts toward every config in it.
 */
export function countConfigAgents(
  agents: Iterable<AgentState>,
  desiredFor: (agent: AgentState) => DesiredConfig | undefined,
): Map<string, ConfigCounts> {
  const counts = new Map<string, ConfigCounts>();
  for (const agent of agents) {
    const desired = desiredFor(agent);
    if (desired === undefined) continue;
    const state: ConfigState = configStateOf(agent, desired);
    for (const { name } of desired.entries) {
      let c = counts.get(name);
      if (c === undefined) counts.set(name, (c = noAgents()));
      c.targeted++;
      if (state !== 'unmanaged') c[state]++;
    }
  }
  return counts;
}

/** How a caller sees a body (auth.ts bodyShownTo), or false to leave bodies out. */
export type BodyShown = false | ((body: string) => string);

export function revisionView(r: ConfigRevisionRecord, current: number | null, withBody: BodyShown) {
  return {
    revision: r.revision,
    current: r.revision === current,
    draft: r.draft && r.revision !== current,
    selector: r.selector,
    content_type: r.contentType,
    enabled: r.enabled,
    body_hash: r.bodyHash,
    body_bytes: new TextEncoder().encode(r.body).length,
    author: r.author,
    created_at: rfc3339FromMs(r.createdAt),
    restored_from: r.restoredFrom,
    ...(withBody && { body: withBody(r.body) }),
  };
}

/** A config as lists show it: what is in force, the newest revision, and the agents it targets. */
export function configView(s: ConfigSummary, counts: ConfigCounts | undefined, withBody: BodyShown = false) {
  const shown = s.current ?? s.latest;
  const current = s.current?.revision ?? null;
  return {
    name: s.name,
    selector: shown.selector,
    content_type: shown.contentType,
    enabled: shown.enabled,
    body_hash: shown.bodyHash,
    current_revision: current,
    latest_revision: s.latest.revision,
    draft_revision: s.latest.revision !== current ? s.latest.revision : null,
    updated_at: rfc3339FromMs(s.updatedAt),
    updated_by: s.latest.author,
    agents: counts ?? noAgents(),
    ...(withBody && {
      body: withBody(shown.body),
      draft: s.latest.revision !== current ? revisionView(s.latest, current, withBody) : null,
    }),
  };
}

export const problemView = (p: ConfigProblem) => ({
  name: p.name,
  source: p.source,
  error: p.error,
  at: rfc3339FromMs(p.at),
});
