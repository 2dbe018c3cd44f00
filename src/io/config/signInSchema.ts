// How people sign in to the UI (docs/security.md "Signing people in"): OpenID Connect
// (auth.oidc), the first-run admin link (auth.first_run_link) and the sessions both open
// (auth.session). Checked with the rest of the configuration; the client secret file is read once
// at startup by the sign-in module, which names this key when it cannot.

import Joi from 'joi';
type Role = 'viewer' | 'admin';

type Duration = (fallback: string) => Joi.Schema;

const oidcRoleMapping = Joi.object({
  value: Joi.string().min(1).required(),
  role: Joi.string().valid('viewer', 'admin').required(),
});

export const signInKeys = (duration: Duration) => ({
  oidc: Joi.object({
    issuer: Joi.string()
      .uri({ scheme: ['http', 'https'] })
      .allow('')
      .default(''),
    client_id: Joi.string().allow('').default(''),
    client_secret: Joi.string().allow('').default(''),
    client_secret_file: Joi.string().allow('').default(''),
    scopes: Joi.array()
      .items(Joi.string().pattern(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'scope token'))
      .unique()
      .default(['openid', 'profile', 'email']),
    redirect_url: Joi.string()
      .uri({ scheme: ['http', 'https'] })
      .allow('')
      .default(''),
    role_claim: Joi.string().min(1).default('groups'),
    role_mapping: Joi.array().items(oidcRoleMapping).default([]),
    default_role: Joi.string().valid('none', 'viewer', 'admin').default('none'),
  })
    .default()
    .custom((value: OidcConfig, helpers) => {
      if (value.issuer === '') return value;
      if (value.client_id === '')
        return helpers.message({ custom: 'auth.oidc.client_id is required with auth.oidc.issuer' });
      if (value.client_secret !== '' && value.client_secret_file !== '')
        return helpers.message({
          custom: 'auth.oidc.client_secret and auth.oidc.client_secret_file are exclusive',
        });
      if (!value.scopes.includes('openid'))
        return helpers.message({ custom: 'auth.oidc.scopes must include openid' });
      return value;
    }),
  first_run_link: Joi.boolean().default(true),
  session: Joi.object({
    absolute_lifetime: duration('12h'),
    idle_lifetime: duration('1h'),
  }).default(),
});

export interface OidcRoleMapping {
  /** A value of the role claim (a group name, say); exact, case-sensitive. */
  readonly value: string;
  readonly role: Role;
}

export interface OidcConfig {
  /** The OpenID Provider's issuer URL; empty: OpenID Connect sign-in is off. */
  readonly issuer: string;
  readonly client_id: string;
  readonly client_secret: string;
  readonly client_secret_file: string;
  readonly scopes: readonly string[];
  /** Where the provider sends the browser back; empty: ui.public_url (or the request's origin) + /auth/callback. */
  readonly redirect_url: string;
  /** The ID-token (or userinfo) claim whose values are mapped to roles: a string or a list of strings. */
  readonly role_claim: string;
  readonly role_mapping: readonly OidcRoleMapping[];
  readonly default_role: Role | 'none';
}

export interface SignInConfig {
  readonly oidc: OidcConfig;
  /** Print a single-use admin sign-in link at startup while the UI has no way to authenticate people. */
  readonly first_run_link: boolean;
  /** Lifetimes of a signed-in browser's session, in ms. */
  readonly session: { readonly absolute_lifetime: number; readonly idle_lifetime: number };
}
