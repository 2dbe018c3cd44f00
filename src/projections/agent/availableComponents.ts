// What the service records of an agent's available components and when it asks for them (issue 24).
// The supervisor sends only their hash until the server sets ReportAvailableComponents in a reply;
// the service asks when it does not hold the whole list for that hash. Pure.
//
// The ask is a flag in the reply to a message of the agent's own, never a push, so it cannot loop on
// its own: an agent that answers with the hash only again is asked again in the reply to that
// message, and nowhere else.

import type { AvailableComponents } from '../../events/agentData.ts';
import type { AgentState } from './agentState.ts';

/** AgentCapabilities_ReportsAvailableComponents. */
export const ReportsAvailableComponents = 0x4000n;

/** The agent sent its whole list, not only the hash (the supervisor's until it is asked). */
export const isWhole = (c: AvailableComponents | null | undefined): boolean =>
  c != null && Object.keys(c.components).length > 0;

/**
 * What to record of a report: the report, or undefined when it says nothing new (the hash alone of
 * the list already held: the list is kept).
 */
export function componentsToRecord(
  held: AvailableComponents | null,
  reported: AvailableComponents | undefined,
): AvailableComponents | undefined {
  if (reported === undefined) return undefined;
  if (held !== null && held.hash === reported.hash && !isWhole(reported)) return undefined;
  return reported;
}

/**
 * How long after connecting an agent that declares ReportsAvailableComponents, and whose list the
 * service does not hold, is sent no remote config: the list it is asked for comes within a message
 * or two (the supervisor sends only the hash first, and messages already queued may come before
 * the answer). A config sent without it could name a type the agent lacks (remoteConfig/
 * componentTypes.ts). An agent that never sends the list gets its config after this.
 */
export const componentsGraceMs = 15_000;

/** Whether a remote config waits for the agent's list of components (componentsGraceMs), at `at`. */
export const awaitsComponents = (agent: AgentState, at: number): boolean =>
  (agent.capabilities & ReportsAvailableComponents) !== 0n &&
  !isWhole(agent.availableComponents) &&
  at - agent.connectionChangedAt < componentsGraceMs;

/**
 * Whether the reply asks for the whole list: the agent declares ReportsAvailableComponents, and
 * after this message the service holds only a hash, or nothing while the message opened a
 * connection (a replica that never saw the list, or one that restarted).
 */
export function asksForComponents(
  after: AgentState,
  reported: AvailableComponents | undefined,
  opensConnection: boolean,
): boolean {
  if ((after.capabilities & ReportsAvailableComponents) === 0n) return false;
  if (isWhole(after.availableComponents)) return false;
  return reported !== undefined || opensConnection;
}
