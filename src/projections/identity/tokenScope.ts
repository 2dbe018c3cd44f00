// What an agent using an enrollment token may claim to be (issue 22; docs/security.md "Enrollment
// tokens"): a token's optional selector, in the fleet matcher syntax of configs' selectors, must hold
// for every description the agent sends. Pure.

import type { AgentDescription } from '../../events/agentData.ts';
import { descriptionAttribute } from '../agent/agentState.ts';
import type { Selector } from '../filter/selector.ts';

/** The refusal text when `description` falls outside the token's `selector`; undefined when inside. */
export function outsideScope(selector: Selector, description: AgentDescription): string | undefined {
  const filter = selector.filter;
  if (filter === null) return `the token's selector is empty: it admits no description`;
  for (const { key, test } of filter.attributeTests)
    if (!test(descriptionAttribute(description, key)))
      return `description does not match the token's selector ${selector.text}`;
  return undefined;
}
