// When to set ReportFullState in a reply (SPEC durability rule 18; OPAMP.md 3.2).
// Pure: the decision reads the agent as it was before the message and after folding it.

import type { FullStateReason } from '../../events/fleetEvent.ts';
import type { AgentState } from './agentState.ts';

/** Which sub-messages an AgentToServer carried. */
export interface PresentParts {
  readonly description: boolean;
  readonly health: boolean;
  readonly effectiveConfig: boolean;
  readonly remoteConfigStatus: boolean;
  readonly packageStatuses: boolean;
}

const ReportsStatus = 0x1n;
const ReportsEffectiveConfig = 0x4n;
const ReportsPackageStatuses = 0x10n;
const ReportsHealth = 0x800n;
const ReportsRemoteConfig = 0x1000n;

const has = (capabilities: bigint, bit: bigint): boolean => (capabilities & bit) !== 0n;

/** True when the message leaves out a sub-message that the agent's capabilities promise. */
export function omitsPromisedPart(capabilities: bigint, present: PresentParts): boolean {
  return (
    (has(capabilities, ReportsStatus) && !present.description) ||
    (has(capabilities, ReportsHealth) && !present.health) ||
    (has(capabilities, ReportsEffectiveConfig) && !present.effectiveConfig) ||
    (has(capabilities, ReportsRemoteConfig) && !present.remoteConfigStatus) ||
    (has(capabilities, ReportsPackageStatuses) && !present.packageStatuses)
  );
}

/**
 * Decides whether to ask for the agent's full state:
 * - while it has no description (rule 18), on every reply until one arrives;
 * - when the agent was unknown (`unknown_agent`) or sequence_num is not previous + 1 (`sequence_gap`),
 *   and the message omits a promised sub-message.
 * Never on a normal heartbeat (in sequence, or nothing missing).
 */
export function decideFullState(
  before: AgentState | undefined,
  after: AgentState | undefined,
  message: { readonly sequenceNum: bigint; readonly capabilities: bigint; readonly present: PresentParts },
): FullStateReason | null {
  if (after === undefined) return null;
  if (after.description === null) return 'no_description';
  // An agent the registry did not know (new, evicted, or known only before a restart) has no sequence
  // to break: its first message is asked for what it omits under its own reason.
  if (before !== undefined && message.sequenceNum === before.sequenceNum + 1n) return null;
  if (!omitsPromisedPart(message.capabilities, message.present)) return null;
  return before === undefined ? 'unknown_agent' : 'sequence_gap';
}
