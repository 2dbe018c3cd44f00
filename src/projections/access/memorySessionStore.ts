// The session store when persistence is off: maps in this process. A restart ends every session and
// every first-run code; each replica has its own (run one replica, or turn persistence on).

import type { SessionStore, SignInSession } from './signInSession.ts';

export function createMemorySessionStore(): SessionStore {
  const sessions = new Map<string, SignInSession>();
  const codes = new Map<string, { expiresAt: number; used: boolean }>();
  return {
    create(session) {
      sessions.set(session.idHash, session);
      return Promise.resolve();
    },
    find(idHash) {
      return Promise.resolve(sessions.get(idHash));
    },
    touch(idHash, at) {
      const session = sessions.get(idHash);
      if (session !== undefined) sessions.set(idHash, { ...session, lastSeenAt: at });
      return Promise.resolve();
    },
    end(idHash) {
      sessions.delete(idHash);
      return Promise.resolve();
    },
    purge(now, idleBefore) {
      let removed = 0;
      for (const [hash, s] of sessions)
        if (s.expiresAt <= now || s.lastSeenAt <= idleBefore) {
          sessions.delete(hash);
          removed++;
        }
      for (const [hash, c] of codes) if (c.expiresAt <= now) codes.delete(hash);
      return Promise.resolve(removed);
    },
    issueCode(codeHash, expiresAt) {
      codes.set(codeHash, { expiresAt, used: false });
      return Promise.resolve();
    },
    useCode(codeHash, now) {
      const code = codes.get(codeHash);
      if (code === undefined || code.used || code.expiresAt <= now) return Promise.resolve(false);
      code.used = true;
      return Promise.resolve(true);
    },
  };
}
