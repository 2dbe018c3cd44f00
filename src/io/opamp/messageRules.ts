// What a message may not do whoever holds its id (docs/security.md "Who may speak for an instance
// id", "Agents per connection and in the fleet", "Report limits"), checked before the credential
// store is asked and again after it answered: the connection's claim on the id
// (connectionOwners.ts), the token's selector, the report limits and fleet.max_agents. Pure: the
// first rule broken, as the reason counted in svc_opamp_refused_total and the text the agent gets.

import type { AgentMessage } from '../../projections/agent/agentMessage.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import { checkReport, type ReportLimits } from '../../projections/agent/reportLimits.ts';
import { outsideScope } from '../../projections/identity/tokenScope.ts';
import type { OpampConnection } from './connection.ts';
import { isRefusal, type Claim, type ClaimRefusal } from './connectionOwners.ts';

const claimText: Readonly<Record<ClaimRefusal, string>> = {
  uid_bound_elsewhere: 'instance_uid is held by another connection',
  one_agent_per_connection: 'a connection that is not an accepted gateway carries one agent',
  max_per_gateway: 'this gateway connection carries the most agents allowed',
};

export interface MessageRules {
  /** agents.limits; none checked when absent. */
  readonly reportLimits?: ReportLimits | undefined;
  /** fleet.max_agents; unlimited when absent. */
  readonly maxAgents?: number | undefined;
}

export interface BrokenRule {
  /** A refusal reason, or the name of the report limit broken. */
  readonly reason: string;
  readonly text: string;
}

/**
 * The first rule `message` breaks on `connection`; undefined when it breaks none. `again`: the
 * message was checked before it waited for the credential store, so only what may have changed
 * meanwhile (the claim, the fleet's size) is checked.
 */
export function brokenRule(
  rules: MessageRules,
  connection: OpampConnection,
  message: AgentMessage,
  claim: Claim | ClaimRefusal,
  known: AgentState | undefined,
  fleetSize: number,
  again = false,
): BrokenRule | undefined {
  if (isRefusal(claim)) return { reason: claim, text: claimText[claim] };
  if (!again) {
    const selector = connection.admission?.selector;
    const outside = selector && message.description && outsideScope(selector, message.description);
    if (outside) return { reason: 'selector', text: outside };
    const violation = rules.reportLimits && checkReport(message, rules.reportLimits);
    if (violation !== undefined) return { reason: violation.limit, text: violation.reason };
  }
  if (known === undefined && rules.maxAgents !== undefined && fleetSize >= rules.maxAgents)
    return { reason: 'max_agents', text: `the fleet holds fleet.max_agents (${rules.maxAgents}) agents` };
  return undefined;
}
