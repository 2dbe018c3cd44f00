// The merged fleet of a list (SPEC durability rule 4), walked in ascending instance_uid order
// without being built: every registry agent (an ordered array, with whether each passes the
// filter) interleaved with the stored agents, as the store's ordered walk yields them. The local
// entry wins: the stored copy of an agent the registry holds is skipped, found by the same
// comparison that interleaves the two sequences rather than by a lookup per stored agent. One pass,
// no sort, no array of the stored agents, no generator. `visit` returns false to stop the walk.

import type { StoredAgents } from '../../persistence/agents/storeReader.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';

export function forEachMerged(
  local: readonly AgentState[],
  accepts: Uint8Array,
  stored: StoredAgents,
  /** The filter for stored agents; undefined when it accepts every agent. */
  include: ((agent: AgentState) => boolean) | undefined,
  visit: (agent: AgentState) => boolean | void,
): void {
  let i = 0;
  let going = true;
  const n = local.length;
  stored.forEachOrdered((agent) => {
    const uid = agent.uid;
    for (; going && i < n && local[i]!.uid < uid; i++)
      if (accepts[i] === 1) going = visit(local[i]!) !== false;
    if (!going) return false;
    if (i < n && local[i]!.uid === uid) return true;
    if (include === undefined || include(agent)) going = visit(agent) !== false;
    return going;
  });
  for (; going && i < n; i++) if (accepts[i] === 1) going = visit(local[i]!) !== false;
}
