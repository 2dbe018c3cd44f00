// Which role an OpenID Connect sign-in gets (docs/security.md "Roles from the provider"): the values
// of auth.oidc.role_claim (a string, or a list of strings, as providers send `groups`) are looked up
// in auth.oidc.role_mapping; the highest role any value maps to wins (admin over viewer), and a
// person none of whose values is mapped gets auth.oidc.default_role (`none`: refused).

export interface ClaimRoleRule {
  readonly value: string;
  readonly role: 'viewer' | 'admin';
}

export interface ClaimRolePolicy {
  readonly claim: string;
  readonly mapping: readonly ClaimRoleRule[];
  readonly defaultRole: 'none' | 'viewer' | 'admin';
}

const rank = { none: 0, viewer: 1, admin: 2 } as const;

/** The claim's values: a string is one value, a list its strings; anything else none. */
export function claimValues(claims: Readonly<Record<string, unknown>>, claim: string): string[] {
  const value = claims[claim];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

export function roleFromClaims(
  claims: Readonly<Record<string, unknown>>,
  policy: ClaimRolePolicy,
): 'none' | 'viewer' | 'admin' {
  const values = new Set(claimValues(claims, policy.claim));
  let role: 'none' | 'viewer' | 'admin' = 'none';
  for (const rule of policy.mapping)
    if (values.has(rule.value) && rank[rule.role] > rank[role]) role = rule.role;
  return role === 'none' ? policy.defaultRole : role;
}

/** What a person is called in the header and the audit log: email, else name, else subject. */
export function displayNameOf(claims: Readonly<Record<string, unknown>>, subject: string): string {
  for (const key of ['email', 'name', 'preferred_username'])
    if (typeof claims[key] === 'string' && claims[key] !== '') return claims[key];
  return subject;
}
