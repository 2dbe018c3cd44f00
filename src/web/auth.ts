// Who is asking, and may they (SPEC "Authentication"; docs/security.md). Installed first in the UI
// listener's koa app so nothing (API, pages, /static, /jobs-ui) is reachable around it.
//
// - `Authorization: Bearer TOKEN`: the token's SHA-256 must match an auth.api_tokens entry, which
//   gives its name and role; any other Authorization header, or a token that matches none, is 401
//   with `WWW-Authenticate: Bearer`.
// - Otherwise a live session cookie (a person signed in through OpenID Connect or the first-run
//   link: src/web/session/) gives that person's name and role; a dead one is cleared and ignored.
// - Otherwise, with ui_tls.client_ca_file set: the client certificate's SPIFFE id mapped to a role;
//   none, or role `none`, is 403.
// - Otherwise the request is anonymous: it may read, unless auth.anonymous_reads is false (401). With
//   auth.allow_unauthenticated_writes it is an admin named `anonymous`, on pages as in the API.
// A request that is not a read (GET, HEAD, OPTIONS) from an identity needs `admin`. Writes that
// change what agents run (configs, job actions) also need an identity: authorizeWrite refuses an
// anonymous one (403) unless auth.allow_unauthenticated_writes is true. Recording a planned job
// stays as SPEC has it (open without client certificates).

import { createHash } from 'node:crypto';
import type { Context, Middleware, Next } from 'koa';
import type { ApiToken } from '../io/config/schema.ts';
import { decideAccess, peerIdentity, type RolePolicy } from '../io/tls/peerIdentity.ts';
import { sendRefusal, type RefusalReason } from './guard/refusal.ts';
import type { SessionManager } from './session/sessionManager.ts';
import { parseBudget, redactSecrets } from './views/redactSecrets.ts';

export interface AuthOptions extends RolePolicy {
  /** Whether the listener verifies client certificates (ui_tls.client_ca_file is set). */
  readonly enabled: boolean;
  /** auth.api_tokens. */
  readonly tokens?: readonly ApiToken[];
  /** auth.anonymous_reads: whether a request without token or certificate may read (default true). */
  readonly anonymousReads?: boolean;
  /** People's sessions (a cookie); absent, no cookie is read. */
  readonly sessions?: SessionManager | undefined;
  /** auth.allow_unauthenticated_writes: an anonymous request is an admin named `anonymous`. */
  readonly allowUnauthenticatedWrites?: boolean;
  /** Sees every refusal (debug logging); the request guard counts them (svc_ui_requests_refused_total). */
  readonly onDenied?: ((path: string, reason: string) => void) | undefined;
}

export interface Identity {
  readonly kind: 'token' | 'certificate' | 'session' | 'anonymous';
  /** The token's name, the certificate's SPIFFE id, a person's email or name: what writes are attributed to. */
  readonly name: string;
  readonly role: 'viewer' | 'admin';
  /** A session's subject (the provider's `sub`, or `first-run`); the name for the other kinds. */
  readonly subject?: string;
}

const anonymousAdmin: Identity = { kind: 'anonymous', name: 'anonymous', role: 'admin' };

/** Set on ctx.state for the handlers after the middleware; absent for an anonymous request. */
export interface AuthState {
  identity?: Identity;
  spiffeId?: string;
  role?: 'viewer' | 'admin';
}

const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
export const isRead = (method: string): boolean => readMethods.has(method);

function refuse(
  ctx: Context,
  status: 401 | 403,
  reason: string,
  options: AuthOptions,
  counted: RefusalReason = status === 401 ? 'unauthorized' : 'forbidden',
): void {
  options.onDenied?.(ctx.path, reason);
  sendRefusal(ctx, status, counted, reason);
  if (status === 401) {
    const error = counted === 'reads_closed' ? '' : ', error="invalid_token"';
    ctx.set('WWW-Authenticate', `Bearer realm="opamp-fleet-server"${error}`);
  }
}

const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The identity a request presents; 'anonymous' when it presents none; a refusal otherwise. */
async function identify(
  ctx: Context,
  options: AuthOptions,
  tokens: ReadonlyMap<string, ApiToken>,
): Promise<Identity | 'anonymous' | { status: 401 | 403; reason: string }> {
  const header = ctx.get('Authorization');
  if (header !== '') {
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (match === null) return { status: 401, reason: 'use Authorization: Bearer TOKEN' };
    const token = tokens.get(sha256Hex(match[1]!));
    if (token === undefined) return { status: 401, reason: 'unknown API token' };
    return { kind: 'token', name: token.name, role: token.role };
  }
  const session = await options.sessions?.find(ctx);
  if (session !== undefined)
    return { kind: 'session', name: session.displayName, role: session.role, subject: session.subject };
  if (options.enabled) return certificateIdentity(ctx, options);
  // Closed reads win over open writes: such a request is refused below, as before.
  const openWrites = options.allowUnauthenticatedWrites === true && options.anonymousReads !== false;
  return openWrites ? anonymousAdmin : 'anonymous';
}

function certificateIdentity(ctx: Context, options: AuthOptions): Identity | { status: 403; reason: string } {
  const access = decideAccess(peerIdentity(ctx.req.socket, options));
  if (!access.ok) return { status: 403, reason: access.reason };
  return { kind: 'certificate', name: access.spiffeId, role: access.role };
}

export function createUiAuth(options: AuthOptions): Middleware {
  const tokens = new Map((options.tokens ?? []).map((t) => [t.sha256, t]));
  return async (ctx: Context, next: Next) => {
    const who = await identify(ctx, options, tokens);
    if (who === 'anonymous' && options.anonymousReads === false) {
      const why =
        'this service does not answer anonymous requests (auth.anonymous_reads: false); present an API token or a client certificate';
      return refuse(ctx, 401, why, options, 'reads_closed');
    }
    if (who !== 'anonymous') {
      if ('status' in who) return refuse(ctx, who.status, who.reason, options);
      if (who.role !== 'admin' && !isRead(ctx.method))
        return refuse(ctx, 403, `${who.name} has role ${who.role}; ${ctx.method} needs admin`, options);
      const state = ctx.state as AuthState;
      state.identity = who;
      if (who.kind === 'certificate') state.spiffeId = who.name;
      state.role = who.role;
    }
    await next();
  };
}

export type WriteAuthorization =
  | { readonly ok: true; readonly author: string }
  | { readonly ok: false; readonly status: 403; readonly error: string };

/**
 * May this request change what agents run? An admin identity may (the middleware already refused
 * non-admins); an anonymous request only when auth.allow_unauthenticated_writes is true.
 */
export function authorizeWrite(ctx: Context, allowUnauthenticated: boolean): WriteAuthorization {
  const identity = (ctx.state as AuthState).identity;
  if (identity !== undefined) return { ok: true, author: identity.name };
  if (allowUnauthenticated) return { ok: true, author: 'anonymous' };
  return {
    ok: false,
    status: 403,
    error:
      'writes need authentication: present an API token (auth.api_tokens) or a client certificate (ui_tls.client_ca_file), or sign in, or set auth.allow_unauthenticated_writes: true',
  };
}

/**
 * Would a write by this caller pass? For pages that offer write controls (the job page's buttons)
 * only to those who may use them: an admin identity, or an anonymous caller when
 * auth.allow_unauthenticated_writes is true. A viewer may read but never write.
 */
export function mayWrite(ctx: Context, allowUnauthenticated: boolean): boolean {
  const identity = (ctx.state as AuthState).identity;
  return identity === undefined ? allowUnauthenticated : identity.role === 'admin';
}

/**
 * Whether this caller sees secrets in config bodies and effective configs whole: an admin identity
 * only. Viewers and anonymous readers get them redacted (docs/security.md "Reads and redaction").
 */
export const seesSecrets = (ctx: Context): boolean => (ctx.state as AuthState).identity?.role === 'admin';

/**
 * How a config body is shown to this caller: whole, or with secret values redacted. Call once per
 * response: the bodies of one response share one parse budget.
 */
export function bodyShownTo(ctx: Context): (body: string) => string {
  if (seesSecrets(ctx)) return (body) => body;
  const budget = parseBudget();
  return (body) => redactSecrets(body, budget).text;
}
