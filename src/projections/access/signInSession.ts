// A person's sign-in to the UI (docs/security.md "Sessions"): what a session holds, when it is
// still good, and the store that keeps sessions and first-run codes. Two stores: in memory
// (persistence off: a restart signs everyone out) and PostgreSQL (persistence on: every replica
// honours a session and a sign-out on one ends it on all). A session is found by the SHA-256 of its
// cookie value, never by the value itself, so the store holds nothing a browser could present.

export type SessionRole = 'viewer' | 'admin';

/** How the session was opened: OpenID Connect, or the first-run admin link. */
export type SessionOrigin = 'oidc' | 'first_run';

export interface SignInSession {
  /** Lowercase hex SHA-256 of the cookie value. */
  readonly idHash: string;
  readonly origin: SessionOrigin;
  /** The provider's `sub` (OIDC), or `first-run` for the first-run link. */
  readonly subject: string;
  /** What people read: the email, else the name, else the subject. */
  readonly displayName: string;
  readonly role: SessionRole;
  /** Unix ms. */
  readonly createdAt: number;
  readonly lastSeenAt: number;
  /** createdAt + the absolute lifetime: the session ends then whatever its use. */
  readonly expiresAt: number;
}

export interface SessionLifetimes {
  readonly absoluteMs: number;
  readonly idleMs: number;
}

/** Still good at `now`: before its absolute end, and used within the idle lifetime. */
export function isLive(session: SignInSession, now: number, lifetimes: SessionLifetimes): boolean {
  return now < session.expiresAt && now - session.lastSeenAt < lifetimes.idleMs;
}

/**
 * Whether a use at `now` should be written back: at most once a minute (or a twentieth of the idle
 * lifetime, if shorter), so a page's polling does not write a row a second.
 */
export function isTouchDue(session: SignInSession, now: number, lifetimes: SessionLifetimes): boolean {
  return now - session.lastSeenAt >= Math.min(60_000, lifetimes.idleMs / 20);
}

export interface SessionStore {
  create(session: SignInSession): Promise<void>;
  /** The session with this hash, live or not; undefined when unknown or ended. */
  find(idHash: string): Promise<SignInSession | undefined>;
  touch(idHash: string, at: number): Promise<void>;
  /** Ends the session (sign-out): found by no replica afterwards. */
  end(idHash: string): Promise<void>;
  /** Removes sessions whose absolute lifetime is over, or that have been idle past `idleBefore`. */
  purge(now: number, idleBefore: number): Promise<number>;
  /** Records a first-run code by its hash, good until `expiresAt`. */
  issueCode(codeHash: string, expiresAt: number): Promise<void>;
  /** Uses the code once: true the first time while it is good, false ever after. */
  useCode(codeHash: string, now: number): Promise<boolean>;
}
