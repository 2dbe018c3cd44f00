// Role of a SPIFFE identity (SPEC "Authentication"; rules decided in docs/security.md):
// exact entries are tried before prefix entries; within each kind the first matching entry wins;
// a valid identity that matches nothing gets auth.default_role; role `none` means 403. Pure.

import type { Role, RoleMappingEntry } from '../config/schema.ts';

export type ResolvedRole = Role | 'none';

/**
 * Prefix entries match whole path segments: `spiffe://td/ns/prod` matches itself and
 * `spiffe://td/ns/prod/...` but not `spiffe://td/ns/production`. A prefix ending in `/` matches
 * everything below it; `spiffe://td` alone matches the whole trust domain.
 */
export function matchesPrefix(id: string, prefix: string): boolean {
  if (!id.startsWith(prefix)) return false;
  return id.length === prefix.length || prefix.endsWith('/') || id[prefix.length] === '/';
}

export function resolveRole(
  id: string,
  mapping: readonly RoleMappingEntry[],
  defaultRole: ResolvedRole,
): ResolvedRole {
  const exact = mapping.find((e) => e.match === 'exact' && e.spiffe_id === id);
  if (exact) return exact.role;
  const prefix = mapping.find((e) => e.match === 'prefix' && matchesPrefix(id, e.spiffe_id));
  return prefix ? prefix.role : defaultRole;
}
