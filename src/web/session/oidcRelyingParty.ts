// The service as an OpenID Connect relying party (docs/security.md "OpenID Connect"), on
// openid-client (with jose beneath it): discovery from auth.oidc.issuer, the authorization-code flow
// with PKCE (S256), `state` and `nonce`, and the ID token's validation (signature from the
// provider's JWKS, read at every sign-in, so a rotated key keeps working; `iss`, `aud`,
// `exp`, `iat`, `nonce`) done by the library: nothing here reads a JWT by hand.
//
// Discovery runs at the first sign-in and again after a failure, so a provider that is down at
// startup does not stop the service. The clock is the service's (`now`): the library is told how far
// it is from the machine's, so tests can move time without waiting.

import * as oidc from 'openid-client';
import type { OidcConfig } from '../../io/config/schema.ts';

/** What a sign-in started with; kept in the browser's short-lived login cookie. */
export interface PendingSignIn {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  /** Where to go once signed in: a path of this UI. */
  readonly returnTo: string;
}

export interface SignedInClaims {
  readonly subject: string;
  readonly claims: Readonly<Record<string, unknown>>;
}

export interface RelyingParty {
  /** Where to send the browser, and what to remember until it comes back. */
  start(redirectUri: string, returnTo: string): Promise<{ url: string; pending: PendingSignIn }>;
  /** Exchanges the code of `callbackUrl`; throws when anything does not check out. */
  finish(callbackUrl: URL, pending: PendingSignIn): Promise<SignedInClaims>;
}

export interface RelyingPartyOptions {
  readonly config: OidcConfig;
  /** The client secret (from client_secret or client_secret_file); empty: a public client. */
  readonly secret: string;
  readonly now: () => number;
  /** For a provider on plain http (tests, a trial on one machine). */
  readonly allowHttp: boolean;
}

export function createRelyingParty(options: RelyingPartyOptions): RelyingParty {
  const { config, secret } = options;
  const execute = options.allowHttp ? [oidc.allowInsecureRequests] : [];
  let discovered: Promise<oidc.Configuration> | undefined;

  const authentication = () => (secret === '' ? oidc.None() : oidc.ClientSecretBasic(secret));

  function discover(): Promise<oidc.Configuration> {
    discovered ??= oidc
      .discovery(new URL(config.issuer), config.client_id, undefined, authentication(), { execute })
      .catch((error: unknown) => {
        discovered = undefined;
        throw error;
      });
    return discovered;
  }

  /**
   * A configuration for one sign-in, on the service's clock. Fresh each time, so the provider's JWKS
   * is read at every sign-in (the library caches it per configuration and refetches an unknown key
   * id only after a minute): a key the provider started signing with a second ago is always found.
   * Sign-ins are rare; one request each is cheap.
   */
  async function configuration(): Promise<oidc.Configuration> {
    const base = await discover();
    const skew = Math.round((options.now() - Date.now()) / 1000);
    const metadata = { client_id: config.client_id, [oidc.clockSkew]: skew };
    const fresh = new oidc.Configuration(base.serverMetadata(), config.client_id, metadata, authentication());
    for (const feature of execute) feature(fresh);
    // The library takes an ID token from the token endpoint on TLS's word unless told to check its
    // signature too; the issue asks for the signature, and a provider over plain http has no TLS.
    oidc.enableNonRepudiationChecks(fresh);
    return fresh;
  }

  return {
    async start(redirectUri, returnTo) {
      const configuration = await discover();
      const pending: PendingSignIn = {
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        verifier: oidc.randomPKCECodeVerifier(),
        returnTo,
      };
      const url = oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: redirectUri,
        scope: config.scopes.join(' '),
        code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
        code_challenge_method: 'S256',
        state: pending.state,
        nonce: pending.nonce,
      });
      return { url: url.href, pending };
    },
    async finish(callbackUrl, pending) {
      const tokens = await oidc.authorizationCodeGrant(await configuration(), callbackUrl, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (claims === undefined) throw new Error('the provider sent no ID token');
      return { subject: claims.sub, claims };
    },
  };
}
