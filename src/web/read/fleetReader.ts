// The fleet read path shared by the JSON API and the web UI. Reads come from the registry; when a
// store is injected (persistence on) it is merged in per SPEC durability rules 2-6:
// - rule 2: a registry hit never touches the store;
// - rule 3: a single read that misses the registry asks the store once;
// - rule 4: a list merges one store list read, the local entry winning on overlap, and is then
//   filtered and paged as one set in instance_uid order;
// - rule 5: the store contract already leaves soft-deleted agents out (storeReader.ts);
// - a failed list read degrades to the registry alone with `partial: true` and onStoreFallback.
// Cost: an unfiltered page without a store walks the ordered index for offset + limit entries; any
// other list is one linear pass over the registry calling the compiled filter (a callback loop, no
// iterator chain: at 100,000 agents the generators cost more than the matching).

import type { InstanceUid } from '../../events/ids.ts';
import type { Logger } from '../../io/logger.ts';
import type { AgentStoreReader } from '../../persistence/agents/storeReader.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import type { Registry } from '../../projections/registry/registryProjection.ts';
import type { Page } from '../query/page.ts';
import type { FleetFilter } from '../../projections/filter/fleetFilter.ts';
import { mergeByUid } from './mergeByUid.ts';

export type ReadSurface = 'api' | 'ui';

export interface FleetReaderDeps {
  readonly registry: Registry;
  /** Absent when persistence is off (SPEC rule 1: partial is then always false). */
  readonly store?: AgentStoreReader | undefined;
  /** Called once per list whose store read failed (feeds svc_list_agents_store_fallback_errors_total). */
  readonly onStoreFallback?: ((surface: ReadSurface, error: unknown) => void) | undefined;
  readonly logger?: Logger | undefined;
}

export interface FleetPage {
  readonly agents: AgentState[];
  /** Size of the filtered set before paging. */
  readonly total: number;
  readonly partial: boolean;
}

export interface FleetSet {
  /** The whole filtered set in ascending instance_uid order. */
  readonly agents: AgentState[];
  readonly partial: boolean;
}

export interface FleetReader {
  /** One page of the filtered fleet (GET /api/agents). */
  listPage(filter: FleetFilter, page: Page, surface: ReadSurface): Promise<FleetPage>;
  /** The whole filtered fleet, for callers that sort by other columns before paging (the UI). */
  listAll(filter: FleetFilter, surface: ReadSurface): Promise<FleetSet>;
  /** Registry first, then the store once (rule 3). Undefined when absent; rejects on a store error. */
  getAgent(uid: InstanceUid): Promise<AgentState | undefined>;
}

export function createFleetReader(deps: FleetReaderDeps): FleetReader {
  const { registry, store } = deps;

  /** Stored agents the registry does not hold that pass the filter, sorted by uid; or the failure. */
  async function storeOnly(filter: FleetFilter, surface: ReadSurface): Promise<AgentState[] | undefined> {
    if (store === undefined) return [];
    let stored: AgentState[];
    try {
      stored = await store.listAgents();
    } catch (error) {
      deps.logger?.warn({ err: error, surface }, 'agent store list failed; serving the local registry only');
      deps.onStoreFallback?.(surface, error);
      return undefined;
    }
    return stored
      .filter((a) => registry.get(a.uid) === undefined && filter.matches(a))
      .sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  }

  /**
   * The filter as a test of the registry's agent at ordered index i: attribute terms look up the
   * registry's attribute columns (each matcher evaluated once per distinct value), the boolean terms
   * read the record. Valid for one synchronous walk of forEachOrdered.
   */
  function localTest(filter: FleetFilter): (agent: AgentState, i: number) => boolean {
    const columns = filter.attributeTests.map(({ key, test }) => {
      const column = registry.attributeColumn(key);
      return { ids: column.ids, accept: Uint8Array.from(column.values, (v) => (test(v) ? 1 : 0)) };
    });
    const { agentTests } = filter;
    return (agent, i) => {
      for (const c of columns) if (c.accept[c.ids[i]!] === 0) return false;
      for (const p of agentTests) if (!p(agent)) return false;
      return true;
    };
  }

  /** The registry's matches in instance_uid order: one tight pass over the ordered index. */
  function localMatches(filter: FleetFilter): AgentState[] {
    const out: AgentState[] = [];
    const test = localTest(filter);
    registry.forEachOrdered((agent, i) => {
      if (test(agent, i)) out.push(agent);
    });
    return out;
  }

  function localPage(filter: FleetFilter, page: Page): FleetPage {
    const agents: AgentState[] = [];
    let total = 0;
    const end = page.offset + page.limit;
    if (filter.empty) {
      registry.forEachOrdered((agent) => {
        if (total >= page.offset) agents.push(agent);
        return ++total < end;
      });
      return { agents, total: registry.size, partial: false };
    }
    const test = localTest(filter);
    registry.forEachOrdered((agent, i) => {
      if (!test(agent, i)) return;
      if (total >= page.offset && total < end) agents.push(agent);
      total++;
    });
    return { agents, total, partial: false };
  }

  async function listPage(filter: FleetFilter, page: Page, surface: ReadSurface): Promise<FleetPage> {
    if (store === undefined) return localPage(filter, page);
    const extras = await storeOnly(filter, surface);
    const agents: AgentState[] = [];
    let total = 0;
    const end = page.offset + page.limit;
    for (const agent of mergeByUid(localMatches(filter), extras ?? [])) {
      if (total >= page.offset && total < end) agents.push(agent);
      total++;
    }
    return { agents, total, partial: extras === undefined };
  }

  async function listAll(filter: FleetFilter, surface: ReadSurface): Promise<FleetSet> {
    const local = localMatches(filter);
    if (store === undefined) return { agents: local, partial: false };
    const extras = await storeOnly(filter, surface);
    return { agents: [...mergeByUid(local, extras ?? [])], partial: extras === undefined };
  }

  async function getAgent(uid: InstanceUid): Promise<AgentState | undefined> {
    const local = registry.get(uid);
    if (local !== undefined || store === undefined) return local;
    return store.getAgent(uid);
  }

  return { listPage, listAll, getAgent };
}
