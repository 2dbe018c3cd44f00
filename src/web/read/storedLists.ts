// Fleet lists over a database store (SPEC durability rules 4-6): the registry's matches (already
// in instance_uid order) interleaved with the store's keyset scan of its own, the stored copy of
// an agent the registry holds left out by the scan (the local entry wins, matching or not). A page
// reads the store only up to offset + limit merged agents; its total is the registry's matches
// plus the store's count of the agents it adds, the two store reads running side by side.
//
// listAll reads the whole merged set for job targets and config counts, which must see every agent.
// The web UI's fleet page (it sorts by other columns before paging) asks for at most `listAllLimit`
// merged agents: past that the set is cut and marked `partial` and `limited`, so a page over a
// million stored agents never holds them all (docs/persistence.md).

import type { InstanceUid } from '../../events/ids.ts';
import type { HeldIds, StoredLists } from '../../persistence/agents/storeReader.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import type { FleetFilter } from '../../projections/filter/fleetFilter.ts';
import type { OrderedAgents, Registry } from '../../projections/registry/registryProjection.ts';
import type { Page } from '../query/page.ts';

/** The most agents the fleet page asks listAll for from a database store's list. */
export const listAllLimit = 50_000;

/**
 * The registry's agents as the store leaves them out: membership by lookup, and the ordered ids
 * built only if the store asks for them (a store that knows its held rows does not).
 */
function heldBy(registry: Registry): HeldIds {
  let ids: InstanceUid[] | undefined;
  return {
    has: (uid) => registry.get(uid) !== undefined,
    ordered() {
      if (ids === undefined) {
        const out: InstanceUid[] = [];
        registry.forEachOrdered((agent) => void out.push(agent.uid));
        ids = out;
      }
      return ids;
    },
  };
}

/**
 * Visits the merged set in instance_uid order until `visit` returns false: `local` are the
 * registry's matches in order, `expected` how many the caller will take.
 */
async function forEachMergedStored(
  lists: StoredLists,
  held: HeldIds,
  local: OrderedAgents,
  filter: FleetFilter,
  expected: number,
  visit: (agent: AgentState) => boolean,
): Promise<void> {
  let i = 0;
  let going = true;
  await lists.scan(
    filter,
    held,
    (agent) => {
      for (; going && i < local.length && local.at(i)!.uid < agent.uid; i++) going = visit(local.at(i)!);
      if (going) going = visit(agent);
      return going;
    },
    expected,
  );
  for (; going && i < local.length; i++) going = visit(local.at(i)!);
}

export async function storedListPage(
  lists: StoredLists,
  registry: Registry,
  local: OrderedAgents,
  filter: FleetFilter,
  page: Page,
): Promise<{ agents: AgentState[]; total: number; partial: boolean }> {
  const agents: AgentState[] = [];
  const end = page.offset + page.limit;
  let seen = 0;
  const held = heldBy(registry);
  const [stored] = await Promise.all([
    lists.count(filter, held),
    end === 0
      ? undefined
      : forEachMergedStored(lists, held, local, filter, end, (agent) => {
          if (seen >= page.offset) agents.push(agent);
          return ++seen < end;
        }),
  ]);
  return { agents, total: local.length + stored, partial: false };
}

export async function storedListAll(
  lists: StoredLists,
  registry: Registry,
  local: readonly AgentState[],
  filter: FleetFilter,
  limit: number,
): Promise<{ agents: AgentState[]; partial: boolean; limited?: boolean }> {
  const agents: AgentState[] = [];
  let limited = false;
  const held = heldBy(registry);
  await forEachMergedStored(lists, held, local, filter, Math.min(limit, 1_000_000), (agent) => {
    if (agents.length === limit) {
      limited = true;
      return false;
    }
    agents.push(agent);
    return true;
  });
  return limited ? { agents, partial: true, limited } : { agents, partial: false };
}
