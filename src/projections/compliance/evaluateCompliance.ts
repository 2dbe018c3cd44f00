// Compliance rules: required attributes (fleet.required_attributes) and reserved keys that collide
// with filter names. Pure.

import type { AgentDescription } from '../../events/agentData.ts';

/** Attribute keys that collide with the list filters of the same name. */
export const reservedAttributeKeys: readonly string[] = ['healthy', 'connected', 'via_gateway'];

export interface Compliance {
  readonly missing: readonly string[];
  readonly conflicts: readonly string[];
}

const hasKey = (d: AgentDescription, key: string): boolean =>
  Object.hasOwn(d.identifying, key) || Object.hasOwn(d.nonIdentifying, key);

/**
 * Missing required keys in configuration order (a key is present in either map, even with an empty
 * value), and reserved keys present in either map.
 */
export function evaluateCompliance(description: AgentDescription, required: readonly string[]): Compliance {
  return {
    missing: required.filter((key) => !hasKey(description, key)),
    conflicts: reservedAttributeKeys.filter((key) => hasKey(description, key)),
  };
}

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((v, i) => v === b[i]);

export interface ComplianceChange extends Compliance {
  readonly newlyMissing: readonly string[];
  readonly newlyConflicting: readonly string[];
}

/** The change from `before` to `after`, or undefined when both lists are the same. */
export function diffCompliance(before: Compliance, after: Compliance): ComplianceChange | undefined {
  if (sameList(before.missing, after.missing) && sameList(before.conflicts, after.conflicts))
    return undefined;
  return {
    ...after,
    newlyMissing: after.missing.filter((k) => !before.missing.includes(k)),
    newlyConflicting: after.conflicts.filter((k) => !before.conflicts.includes(k)),
  };
}
