// What the read path needs from the store (SPEC durability rules 3-6, 10). The web layer depends on
// this interface only; the PostgreSQL implementation lives beside it. Stored agents come back as the
// same AgentState records the registry holds, so filters and views treat both alike.

import type { InstanceUid } from '../../events/ids.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';

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

export interface AgentStoreReader {
  /** For fleet lists; never waits (the stored agents are mirrored in memory). */
  listAgents(): StoredList;
  /** One agent with its effective config; undefined when absent or soft-deleted. Rejects on store error. */
  getAgent(uid: InstanceUid): Promise<AgentState | undefined>;
}
