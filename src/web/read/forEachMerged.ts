// The merged fleet of a list (SPEC durability rule 4), walked in ascending instance_uid order
// without being built: every registry agent (an ordered array, with whether each passes the
// filter) interleaved with the stored agents, as the store's ordered walk yields them. The local
// entry wins: the stored copy of an agent the registry holds is skipped, found by the same
// comparison that interleaves the two sequences rather than by a lookup per stored agent. One pass,
// no sort, no array of the stored agents, no generator: a page of a 100,000-agent merge only
// counts what it does not keep.

import type { StoredAgents } from '../../persistence/agents/storeReader.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';

export function forEachMerged(
  local: readonly AgentState[],
  accepts: Uint8Array,
  stored: StoredAgents,
  /** The filter for stored agents; undefined when it accepts every agent. */
  include: ((agent: AgentState) => boolean) | undefined,
  visit: (agent: AgentState) => void,
): void {
  let i = 0;
  const n = local.length;
  stored.forEachOrdered((agent) => {
    const uid = agent.uid;
    for (; i < n && local[i]!.uid < uid; i++) if (accepts[i] === 1) visit(local[i]!);
    if (i < n && local[i]!.uid === uid) return;
    if (include === undefined || include(agent)) visit(agent);
  });
  for (; i < n; i++) if (accepts[i] === 1) visit(local[i]!);
}
