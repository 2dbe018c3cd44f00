// The sign-in paths under /auth (docs/security.md "Signing people in"), mounted before the
// authentication middleware so that a person without a credential can reach them (also with a UI
// client CA or auth.anonymous_reads: false); the host and cross-site rules still apply.
//
//   GET  /auth/sign-in?return_to=/path   to the provider (OpenID Connect), or a page saying how
//   GET  /auth/callback?code&state       back from the provider: the code exchanged, a session opened
//   GET  /auth/first-run?code=CODE       the first-run admin link: once, within 15 minutes
//   POST /auth/sign-out                  ends the session on every replica
//
// The pending sign-in (state, nonce, PKCE verifier, where to return) lives in a cookie scoped to
// /auth for 10 minutes, and is cleared at the callback whatever its outcome: a callback replayed
// later has nothing to match. Every refusal is a page saying why, counted by `onSignIn`.

import Router from '@koa/router';
import type { Context } from 'koa';
import { displayNameOf, roleFromClaims, type ClaimRolePolicy } from '../../projections/access/claimRole.ts';
import type { SessionStore } from '../../projections/access/signInSession.ts';
import { sendHtml } from '../pages/pageContext.ts';
import type { Renderer } from '../pages/render.ts';
import type { PendingSignIn, RelyingParty } from './oidcRelyingParty.ts';
import { readCookie, setCookie, sha256Hex } from './sessionCookie.ts';
import type { SessionManager } from './sessionManager.ts';

/** Outcomes counted in svc_ui_sign_ins_total{result}. */
export type SignInResult =
  | 'signed_in'
  | 'first_run'
  | 'no_pending'
  | 'provider_error'
  | 'rejected'
  | 'no_role'
  | 'code_refused'
  | 'signed_out';

export interface SignInDeps {
  readonly sessions: SessionManager;
  readonly store: SessionStore;
  readonly render: Renderer;
  readonly now: () => number;
  /** Absent: OpenID Connect is not configured. */
  readonly relyingParty?: RelyingParty | undefined;
  readonly rolePolicy: ClaimRolePolicy;
  /** auth.oidc.redirect_url, else ui.public_url + /auth/callback; empty: the request's own origin. */
  readonly redirectUrl: string;
  readonly firstRunLink: boolean;
  readonly onSignIn: (result: SignInResult) => void;
  readonly onError: (message: string, error: unknown) => void;
}

const pendingCookie = 'svc_sign_in';
const pendingMaxAge = 600;

/** A path of this UI, never another site (`//host`, `/\host`, a scheme). */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/') || /^\/[/\\]/.test(value)) return '/';
  return value.length > 2000 ? '/' : value;
}

/** The path of the page a same-origin link was followed from (the header's Sign in), else none. */
function refererPath(ctx: Context): string | undefined {
  try {
    const from = new URL(ctx.get('Referer'));
    return from.host === ctx.host && !from.pathname.startsWith('/auth/')
      ? from.pathname + from.search
      : undefined;
  } catch {
    return undefined;
  }
}

const encodePending = (p: PendingSignIn) => Buffer.from(JSON.stringify(p), 'utf8').toString('base64url');

function decodePending(text: string | undefined): PendingSignIn | undefined {
  if (text === undefined || text === '') return undefined;
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<PendingSignIn>;
    const fields = [value.state, value.nonce, value.verifier, value.returnTo];
    return fields.every((f) => typeof f === 'string') ? (value as PendingSignIn) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The library's reason, with what it names along its chain of causes: the claim (`exp`, `aud`), the
 * parameter (`state`), the provider's error (`invalid_grant`) or the check that failed.
 */
export function refusalText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const named: string[] = [];
  let at: unknown = error;
  for (let depth = 0; depth < 5 && typeof at === 'object' && at !== null; depth++) {
    const e = at as Record<string, unknown>;
    for (const key of ['claim', 'parameter', 'error', 'code'])
      if (typeof e[key] === 'string' && !named.includes(`${key} "${e[key]}"`))
        named.push(`${key} "${e[key]}"`);
    if (at !== error && at instanceof Error && !named.includes(at.message)) named.push(at.message);
    at = e.cause;
  }
  return named.length === 0 ? error.message : `${error.message} (${named.join('; ')})`;
}

export function createSignInRoutes(deps: SignInDeps): Router {
  const router = new Router({ prefix: '/auth' });
  const secure = deps.sessions.secure;
  const page = (ctx: Context, status: number, title: string, message: string, retry = true) =>
    sendHtml(
      ctx,
      status,
      deps.render('signIn', {
        title,
        message,
        nav: '',
        now: deps.now(),
        oidc: deps.relyingParty !== undefined,
        firstRunLink: deps.firstRunLink,
        retry,
      }),
    );
  const redirectUri = (ctx: Context) => deps.redirectUrl || `${ctx.protocol}://${ctx.host}/auth/callback`;

  router.get('/sign-in', async (ctx) => {
    const returnTo = safeReturnTo(ctx.query.return_to ?? refererPath(ctx));
    if (deps.relyingParty === undefined)
      return page(ctx, 200, 'Sign in', 'This service has no OpenID Connect provider configured.', false);
    let started;
    try {
      started = await deps.relyingParty.start(redirectUri(ctx), returnTo);
    } catch (error) {
      deps.onError('OpenID Connect discovery failed', error);
      deps.onSignIn('provider_error');
      return page(ctx, 502, 'Sign-in unavailable', 'The identity provider cannot be reached; try again.');
    }
    setCookie(ctx, pendingCookie, encodePending(started.pending), {
      secure,
      maxAge: pendingMaxAge,
      path: '/auth',
    });
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(started.url);
  });

  router.get('/callback', async (ctx) => {
    const pending = decodePending(readCookie(ctx, pendingCookie));
    setCookie(ctx, pendingCookie, '', { secure, maxAge: 0, path: '/auth' });
    if (deps.relyingParty === undefined || pending === undefined) {
      deps.onSignIn('no_pending');
      return page(ctx, 400, 'Sign-in refused', 'This sign-in was not started here, or took too long.');
    }
    if (typeof ctx.query.error === 'string') {
      deps.onSignIn('provider_error');
      const why =
        typeof ctx.query.error_description === 'string' ? ctx.query.error_description : ctx.query.error;
      return page(ctx, 403, 'Sign-in refused', `The identity provider refused: ${why}`);
    }
    const callbackUrl = new URL(redirectUri(ctx));
    callbackUrl.search = ctx.querystring;
    let signedIn;
    try {
      signedIn = await deps.relyingParty.finish(callbackUrl, pending);
    } catch (error) {
      deps.onError('OpenID Connect sign-in refused', error);
      deps.onSignIn('rejected');
      const why = refusalText(error);
      return page(ctx, 403, 'Sign-in refused', `The sign-in did not check out: ${why}`);
    }
    const role = roleFromClaims(signedIn.claims, deps.rolePolicy);
    const displayName = displayNameOf(signedIn.claims, signedIn.subject);
    if (role === 'none') {
      deps.onSignIn('no_role');
      const claim = deps.rolePolicy.claim;
      return page(
        ctx,
        403,
        'No access',
        `${displayName} has no role here: none of your ${claim} is mapped to one (auth.oidc.role_mapping).`,
        false,
      );
    }
    await deps.sessions.open(ctx, { origin: 'oidc', subject: signedIn.subject, displayName, role });
    deps.onSignIn('signed_in');
    ctx.status = 303;
    ctx.redirect(pending.returnTo);
  });

  router.get('/first-run', async (ctx) => {
    const code = typeof ctx.query.code === 'string' ? ctx.query.code : '';
    const good = deps.firstRunLink && code !== '' && (await deps.store.useCode(sha256Hex(code), deps.now()));
    if (!good) {
      deps.onSignIn('code_refused');
      return page(
        ctx,
        403,
        'Link refused',
        'This sign-in link was used already, has expired, or is not one this service printed.',
        false,
      );
    }
    await deps.sessions.open(ctx, {
      origin: 'first_run',
      subject: 'first-run',
      displayName: 'first-run admin',
      role: 'admin',
    });
    deps.onSignIn('first_run');
    ctx.status = 303;
    ctx.redirect('/');
  });

  router.post('/sign-out', async (ctx) => {
    await deps.sessions.end(ctx);
    deps.onSignIn('signed_out');
    ctx.status = 303;
    ctx.redirect('/');
  });

  return router;
}
