// What the read path needs from the store (SPEC durability rules 3-6, 10). The web layer depends on
// this interface only; the PostgreSQL implementation lives beside it. Stored agents come back as the
// same AgentState records the registry holds, so filters and views treat both alike.

import type { InstanceUid } from '../../events/ids.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';

export interface AgentStoreReader {
  /**
   * One store read for fleet lists: every stored agent that is not soft-deleted, without effective
   * configs (`effectiveConfig: null`). `connected` is true only while the stored session's
   * updated_at is within the disconnect threshold (rule 10). Rejects on any store error.
   */
  listAgents(): Promise<AgentState[]>;
  /** One agent with its effective config; undefined when absent or soft-deleted. Rejects on store error. */
  getAgent(uid: InstanceUid): Promise<AgentState | undefined>;
}
