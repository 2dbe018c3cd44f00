// Opens, finds and ends people's sessions (docs/security.md "Sessions") on the store that persistence
// gives (PostgreSQL: every replica) or memory. A session found past its absolute or idle lifetime is
// ended and its cookie cleared; a live one is touched at most once a minute. Sessions past their
// lifetime are also purged by a guarded timer.

import type { Context } from 'koa';
import {
  isLive,
  isTouchDue,
  type SessionLifetimes,
  type SessionStore,
  type SignInSession,
} from '../../projections/access/signInSession.ts';
import { newSecret, readCookie, sessionCookieName, setCookie, sha256Hex } from './sessionCookie.ts';

export interface SessionManagerOptions {
  readonly store: SessionStore;
  readonly lifetimes: SessionLifetimes;
  readonly now: () => number;
  /** Whether browsers reach the UI over https (Secure, __Host- cookie). */
  readonly secure: boolean;
}

export type NewSession = Pick<SignInSession, 'origin' | 'subject' | 'displayName' | 'role'>;

export interface SessionManager {
  readonly secure: boolean;
  /** Opens a session and sets its cookie on the answer. */
  open(ctx: Context, who: NewSession): Promise<SignInSession>;
  /** The request's live session, or undefined (a dead one is ended and its cookie cleared). */
  find(ctx: Context): Promise<SignInSession | undefined>;
  /** Ends the request's session everywhere and clears its cookie. */
  end(ctx: Context): Promise<void>;
  purge(): Promise<number>;
}

export function createSessionManager(options: SessionManagerOptions): SessionManager {
  const { store, lifetimes, now, secure } = options;
  const name = sessionCookieName(secure);
  const clear = (ctx: Context) => setCookie(ctx, name, '', { secure, maxAge: 0 });
  return {
    secure,
    async open(ctx, who) {
      const secret = newSecret();
      const at = now();
      const session: SignInSession = {
        ...who,
        idHash: sha256Hex(secret),
        createdAt: at,
        lastSeenAt: at,
        expiresAt: at + lifetimes.absoluteMs,
      };
      await store.create(session);
      setCookie(ctx, name, secret, { secure, maxAge: lifetimes.absoluteMs / 1000 });
      return session;
    },
    async find(ctx) {
      const secret = readCookie(ctx, name);
      if (secret === undefined || secret === '') return undefined;
      const idHash = sha256Hex(secret);
      const session = await store.find(idHash);
      const at = now();
      if (session === undefined || !isLive(session, at, lifetimes)) {
        if (session !== undefined) await store.end(idHash);
        clear(ctx);
        return undefined;
      }
      if (isTouchDue(session, at, lifetimes)) await store.touch(idHash, at);
      return session;
    },
    async end(ctx) {
      const secret = readCookie(ctx, name);
      if (secret !== undefined && secret !== '') await store.end(sha256Hex(secret));
      clear(ctx);
    },
    purge() {
      const at = now();
      return store.purge(at, at - lifetimes.idleMs);
    },
  };
}
