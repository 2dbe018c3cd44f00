// What the read path needs from the store (SPEC durability rules 3-6, 10). The web layer depends on
// this interface only; the PostgreSQL implementation lives beside it. Stored agents come back as the
// same AgentState records the registry holds, so filters and views treat both alike.
//
// A store answers lists in one of two ways: a store held in memory hands over its agents to walk
// (`listAgents`), and a database answers each list itself at request time (`lists`, the PostgreSQL
// store: nothing per stored agent is kept in the replica's memory).

import type { InstanceUid } from '../../events/ids.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import type { FleetFilter } from '../../projections/filter/fleetFilter.ts';

/** The stored agents one fleet list merges (rule 4). */
export interface StoredAgents {
  /** How many agents forEachOrdered visits, without walking them. */
  readonly size: number;
  /** Whether forEachOrdered visits the agent `uid`. */
  has(uid: InstanceUid): boolean;
  /**
   * Calls `visit` with every live stored agent in ascending instance_uid order until it returns
   * false: without effective configs (`effectiveConfig: null`), without the agents this replica has
   * evicted since, and `connected` only while the stored session is fresh (rule 10). The walk is
   * synchronous.
   */
  forEachOrdered(visit: (agent: AgentState) => boolean | void): void;
}

/** The stored agents, or why there are none to merge (the list then answers `partial`). */
export type StoredList =
  { readonly ok: true; readonly agents: StoredAgents } | { readonly ok: false; readonly error: unknown };

/**
 * The agents the registry holds, which a list takes from the registry instead of the store (the
 * local entry wins). `ordered` is built only when a store needs every id (a database that knows
 * which rows name this replica sends only the others, heldRows.ts).
 */
export interface HeldIds {
  has(uid: InstanceUid): boolean;
  /** Every held id, ascending. */
  ordered(): readonly InstanceUid[];
}

/** HeldIds over ids already in ascending order. */
export function heldIds(ordered: readonly InstanceUid[]): HeldIds {
  let set: Set<InstanceUid> | undefined;
  return {
    has: (uid) => (set ??= new Set(ordered)).has(uid),
    ordered: () => ordered,
  };
}

/** Fleet lists answered by the store at request time (the database). Every call rejects on a store error. */
export interface StoredLists {
  /**
   * Calls `visit` with the live stored agents `filter` accepts, in ascending instance_uid order,
   * until it returns false or they run out: without effective configs, without the agents this
   * replica has evicted since, `connected` only while the stored session is fresh (rule 10), and
   * without the `held` ones (the registry's: the local entry wins; the database leaves them out,
   * so a replica holding most of the fleet does not read its own agents' rows). Agents arrive in
   * bounded chunks; `visit` is called synchronously within one chunk.
   */
  scan(
    filter: FleetFilter,
    held: HeldIds,
    visit: (agent: AgentState) => boolean | void,
    /** How many agents the caller expects to take: the size of the first chunk read. */
    expected?: number,
  ): Promise<void>;
  /** How many agents scan would visit. */
  count(filter: FleetFilter, held: HeldIds): Promise<number>;
}

export interface AgentStoreReader {
  /** A store held in memory: its agents for one list; never waits. */
  listAgents?(): StoredList;
  /** A database: lists answered at request time. */
  readonly lists?: StoredLists;
  /** One agent with its effective config; undefined when absent or soft-deleted. Rejects on store error. */
  getAgent(uid: InstanceUid): Promise<AgentState | undefined>;
}
