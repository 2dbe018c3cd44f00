// People's sign-in to the UI, assembled (docs/security.md "Signing people in"): the session manager
// on the given store, the OpenID Connect relying party when auth.oidc.issuer is set, the /auth
// routes, the first-run admin link, and a guarded timer that purges dead sessions.

import { readFileSync } from 'node:fs';
import type Router from '@koa/router';
import type { Config } from '../../io/config/schema.ts';
import type { Logger } from '../../io/logger.ts';
import type { SessionStore } from '../../projections/access/signInSession.ts';
import type { Renderer } from '../pages/render.ts';
import { createRelyingParty } from './oidcRelyingParty.ts';
import { newSecret, sha256Hex } from './sessionCookie.ts';
import { createSessionManager, type SessionManager } from './sessionManager.ts';
import { createSignInRoutes, type SignInResult } from './signInRoutes.ts';

/** A first-run link is good for 15 minutes, once. */
export const firstRunValidityMs = 15 * 60_000;
const purgeEveryMs = 10 * 60_000;

export interface SignInOptions {
  readonly config: Config;
  readonly store: SessionStore;
  readonly logger: Logger;
  readonly now: () => number;
  /** Whether the UI listener has TLS. */
  readonly uiTls: boolean;
  readonly onSignIn?: (result: SignInResult) => void;
  readonly render: Renderer;
}

export interface SignIn {
  readonly sessions: SessionManager;
  readonly routes: Router;
  /** Whether a person can sign in here (OpenID Connect, or the first-run link). */
  readonly offered: boolean;
  /** Whether the UI has no way to authenticate a person, so the first-run link is printed. */
  readonly needsFirstRunLink: boolean;
  /** Prints the first-run link when it is needed; `uiUrl` is where the listener was bound. */
  start(uiUrl: string): Promise<void>;
  stop(): void;
}

function clientSecret(oidc: Config['auth']['oidc']): string {
  if (oidc.client_secret_file === '') return oidc.client_secret;
  try {
    return readFileSync(oidc.client_secret_file, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new Error(`auth.oidc.client_secret_file: cannot read ${oidc.client_secret_file} (${code})`);
  }
}

export function createSignIn(options: SignInOptions): SignIn {
  const { config, store, logger, now } = options;
  const { oidc } = config.auth;
  const publicUrl = config.ui.public_url.replace(/\/+$/, '');
  const secure = options.uiTls || publicUrl.startsWith('https:');
  const sessions = createSessionManager({
    store,
    now,
    secure,
    lifetimes: {
      absoluteMs: config.auth.session.absolute_lifetime,
      idleMs: config.auth.session.idle_lifetime,
    },
  });
  const relyingParty =
    oidc.issuer === ''
      ? undefined
      : createRelyingParty({
          config: oidc,
          secret: clientSecret(oidc),
          now,
          allowHttp: oidc.issuer.startsWith('http:'),
        });
  const needsFirstRunLink =
    config.auth.first_run_link && relyingParty === undefined && config.ui_tls.client_ca_file === '';
  const routes = createSignInRoutes({
    sessions,
    store,
    now,
    relyingParty,
    render: options.render,
    rolePolicy: { claim: oidc.role_claim, mapping: oidc.role_mapping, defaultRole: oidc.default_role },
    redirectUrl: oidc.redirect_url || (publicUrl === '' ? '' : `${publicUrl}/auth/callback`),
    firstRunLink: needsFirstRunLink,
    onSignIn: (result) => {
      options.onSignIn?.(result);
      logger.info({ result }, 'sign-in');
    },
    onError: (message, error) => logger.warn({ err: error }, message),
  });

  let timer: ReturnType<typeof setInterval> | undefined;
  let purging = false;
  const purge = () => {
    if (purging) return;
    purging = true;
    sessions
      .purge()
      .catch((error: unknown) => logger.warn({ err: error }, 'session purge failed'))
      .finally(() => (purging = false));
  };

  return {
    sessions,
    routes,
    offered: relyingParty !== undefined || needsFirstRunLink,
    needsFirstRunLink,
    async start(uiUrl) {
      timer = setInterval(purge, purgeEveryMs);
      timer.unref();
      if (!needsFirstRunLink) return;
      const code = newSecret();
      await store.issueCode(sha256Hex(code), now() + firstRunValidityMs);
      const link = `${publicUrl || uiUrl}/auth/first-run?code=${code}`;
      logger.warn(
        `No sign-in is configured for people. Open ${link} within 15 minutes to sign in as admin (the link works once). ` +
          'For real sign-in configure auth.oidc (issuer, client_id, client_secret, role_mapping; docs/security.md), ' +
          'or a UI client CA; auth.first_run_link: false turns this link off.',
      );
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
    },
  };
}
