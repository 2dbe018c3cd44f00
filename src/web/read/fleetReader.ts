// The fleet read path shared by the JSON API and the web UI. Reads come from the registry; when a
// store is injected (persistence on) it is merged in per SPEC durability rules 2-6:
// - rule 2: a registry hit never touches the store;
// - rule 3: a single read that misses the registry asks the store once;
// - rule 4: a list merges the stored agents (in instance_uid order), the local entry winning on
//   overlap, and is then filtered and paged as one set. A database store (persistence on) answers
//   at request time: the registry's matches are interleaved with the store's keyset scan of its
//   matches (storedLists.ts), and the total is the registry's matches plus the store's count of
//   the agents it adds; a store held in memory hands over its agents to walk (below);
// - rule 5: the store contract already leaves soft-deleted agents out (storeReader.ts), and the
//   agents this replica has evicted since;
// - a store that cannot serve a list degrades it to the registry alone with `partial: true` and
//   onStoreFallback.
// Cost (in-memory stores): an unfiltered page walks the ordered registry (and store) for offset +
// limit entries and counts the merged total from their sizes; any other list is one linear pass
// over the registry, and one over the store, calling the compiled filter (callback loops, no iterator chain: at
// 100,000 agents the generators cost more than the matching). Nothing is sorted and no record is
// copied.

import type { InstanceUid } from '../../events/ids.ts';
import type { Logger } from '../../io/logger.ts';
import type { AgentStoreReader, StoredAgents } from '../../persistence/agents/storeReader.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import type { OrderedAgents, Registry } from '../../projections/registry/registryProjection.ts';
import type { Page } from '../query/page.ts';
import type { FleetFilter } from '../../projections/filter/fleetFilter.ts';
import { createAcceptCache } from './acceptCache.ts';
import { forEachMerged } from './forEachMerged.ts';
import { storedListAll, storedListPage } from './storedLists.ts';

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
  /** Cut at the caller's `limit` (then also `partial`): the store holds more. */
  readonly limited?: boolean;
}

export interface FleetReader {
  /** One page of the filtered fleet (GET /api/agents). */
  listPage(filter: FleetFilter, page: Page, surface: ReadSurface): Promise<FleetPage>;
  /** The whole filtered fleet (job targets, config counts; the UI, which sorts before paging, passes a `limit`). */
  listAll(filter: FleetFilter, surface: ReadSurface, limit?: number): Promise<FleetSet>;
  /** Registry first, then the store once (rule 3). Undefined when absent; rejects on a store error. */
  getAgent(uid: InstanceUid): Promise<AgentState | undefined>;
}

export function createFleetReader(deps: FleetReaderDeps): FleetReader {
  const { registry, store } = deps;
  const acceptCache = createAcceptCache();

  /**
   * The stored agents of one list, or undefined when the store cannot serve it: the list is then the
   * registry's alone and `partial`, and the fallback is reported.
   */
  function storedFor(surface: ReadSurface): StoredAgents | undefined {
    const stored = store?.listAgents?.();
    if (stored === undefined || stored.ok) return stored?.agents;
    fellBack(surface, stored.error);
    return undefined;
  }

  function fellBack(surface: ReadSurface, error: unknown): void {
    // The store logs when it stops and starts serving; one line per request would add nothing.
    deps.logger?.debug({ err: error, surface }, 'fleet list without the store');
    deps.onStoreFallback?.(surface, error);
  }

  /**
   * The filter's attribute terms as byte columns aligned with forEachOrdered's indexes: the
   * registry's attribute columns (attributeColumns.ts), each matcher evaluated once per distinct
   * value. Valid for one synchronous walk.
   */
  function acceptColumns(filter: FleetFilter): { ids: Uint32Array; accept: Uint8Array }[] {
    return filter.attributeTests.map(({ key, test, text }) => {
      const column = registry.attributeColumn(key);
      return { ids: column.ids, accept: acceptCache.accepts(column.values, text, test) };
    });
  }

  /**
   * The filter as a test of the registry's agent at ordered index i: attribute terms look up the
   * accept columns, the boolean terms the agent's flag byte (registry.orderedFlags), and only
   * config_state and component terms read the record. Valid for one synchronous walk of
   * forEachOrdered.
   */
  function localTest(filter: FleetFilter): (agent: AgentState, i: number) => boolean {
    const columns = acceptColumns(filter);
    const { flags: flagTest, recordTests } = filter;
    const { mask, want } = flagTest;
    const flags = mask === 0 ? undefined : registry.orderedFlags();
    return (agent, i) => {
      if (flags !== undefined && (flags[i]! & mask) !== want) return false;
      for (const c of columns) if (c.accept[c.ids[i]!] === 0) return false;
      for (const p of recordTests) if (!p(agent)) return false;
      return true;
    };
  }

  /**
   * The ordered positions a filter without record tests accepts: the walk reads the accept columns
   * and the agents' flags (registry.orderedFlags) alone, never a record. Visiting every record cost
   * a cache miss per agent, more than the matching (3 ms of a regex list at 100,000 agents, 30 ms
   * of `healthy=true` through the record's health). Valid for one synchronous turn.
   */
  function columnPositions(filter: FleetFilter): Int32Array {
    const columns = acceptColumns(filter);
    const { mask, want } = filter.flags;
    const flags = mask === 0 ? undefined : registry.orderedFlags();
    const size = registry.orderedSnapshot().length;
    const positions = new Int32Array(size);
    let n = 0;
    for (let i = 0; i < size; i++) {
      if (flags !== undefined && (flags[i]! & mask) !== want) continue;
      let accepted = true;
      for (const c of columns)
        if (c.accept[c.ids[i]!] === 0) {
          accepted = false;
          break;
        }
      if (accepted) positions[n++] = i;
    }
    return positions.subarray(0, n);
  }

  /** A page of a filter without record tests: only the page's records are fetched. */
  function columnPage(filter: FleetFilter, page: Page): FleetPage {
    const positions = columnPositions(filter);
    const agents: AgentState[] = [];
    const end = Math.min(page.offset + page.limit, positions.length);
    for (let i = page.offset; i < end; i++) agents.push(registry.orderedAt(positions[i]!)!);
    return { agents, total: positions.length, partial: false };
  }

  /**
   * The registry's matches in instance_uid order for a database list, which reads few of them (a
   * page) but needs how many: the empty filter is the ordered index itself, a filter without record
   * tests the positions its columns and flags accept (no record read), any other one pass over the
   * records.
   */
  function localOrdered(filter: FleetFilter): OrderedAgents {
    if (filter.empty) return registry.orderedSnapshot();
    if (filter.recordTests.length > 0) return localMatches(filter);
    const snapshot = registry.orderedSnapshot();
    const positions = columnPositions(filter);
    const n = positions.length;
    return { length: n, at: (index) => (index < n ? snapshot.at(positions[index]!) : undefined) };
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

  /** The merged set of one list, in instance_uid order (forEachMerged.ts). */
  function forEachListed(
    filter: FleetFilter,
    stored: StoredAgents,
    visit: (agent: AgentState) => boolean | void,
  ): void {
    const local = new Array<AgentState>(registry.size);
    const accepts = new Uint8Array(registry.size);
    const test = localTest(filter);
    registry.forEachOrdered((agent, i) => {
      local[i] = agent;
      accepts[i] = test(agent, i) ? 1 : 0;
    });
    forEachMerged(local, accepts, stored, filter.empty ? undefined : (agent) => filter.matches(agent), visit);
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
    if (filter.recordTests.length === 0) return columnPage(filter, page);
    const test = localTest(filter);
    registry.forEachOrdered((agent, i) => {
      if (!test(agent, i)) return;
      if (total >= page.offset && total < end) agents.push(agent);
      total++;
    });
    return { agents, total, partial: false };
  }

  function listPage(filter: FleetFilter, page: Page, surface: ReadSurface): Promise<FleetPage> {
    const lists = store?.lists;
    if (lists !== undefined)
      return storedListPage(lists, registry, localOrdered(filter), filter, page).catch((error: unknown) => {
        fellBack(surface, error);
        return { ...localPage(filter, page), partial: true };
      });
    const stored = storedFor(surface);
    if (stored === undefined)
      return Promise.resolve({ ...localPage(filter, page), partial: store !== undefined });
    const agents: AgentState[] = [];
    let total = 0;
    const end = page.offset + page.limit;
    if (filter.empty) {
      // Every agent counts: the total is the registry plus the stored agents it does not hold, and
      // the walk stops at the end of the page instead of passing over every stored agent.
      let overlap = 0;
      registry.forEachOrdered((agent) => {
        if (stored.has(agent.uid)) overlap++;
      });
      forEachListed(filter, stored, (agent) => {
        if (total >= page.offset) agents.push(agent);
        return ++total < end;
      });
      return Promise.resolve({ agents, total: registry.size + stored.size - overlap, partial: false });
    }
    forEachListed(filter, stored, (agent) => {
      if (total >= page.offset && total < end) agents.push(agent);
      total++;
    });
    return Promise.resolve({ agents, total, partial: false });
  }

  function listAll(filter: FleetFilter, surface: ReadSurface, limit = Infinity): Promise<FleetSet> {
    const lists = store?.lists;
    if (lists !== undefined) {
      const local = localMatches(filter);
      return storedListAll(lists, registry, local, filter, limit).catch((error: unknown) => {
        fellBack(surface, error);
        return { agents: local, partial: true };
      });
    }
    const stored = storedFor(surface);
    if (stored === undefined)
      return Promise.resolve({ agents: localMatches(filter), partial: store !== undefined });
    const agents: AgentState[] = [];
    forEachListed(filter, stored, (agent) => void agents.push(agent));
    return Promise.resolve({ agents, partial: false });
  }

  async function getAgent(uid: InstanceUid): Promise<AgentState | undefined> {
    const local = registry.get(uid);
    if (local !== undefined || store === undefined) return local;
    return store.getAgent(uid);
  }

  return { listPage, listAll, getAgent };
}
