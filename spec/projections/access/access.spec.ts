// The pure rules of people's sign-in and the audit log: which role a provider's claims give, when a
// session is still good and when its use is written back, where a sign-in may return to, and which
// audit entries a filter keeps.

import { expect } from 'chai';
import { matchesAudit, type AuditEntry } from '../../../src/projections/access/auditLog.ts';
import { displayNameOf, roleFromClaims } from '../../../src/projections/access/claimRole.ts';
import { isLive, isTouchDue, type SignInSession } from '../../../src/projections/access/signInSession.ts';
import { safeReturnTo } from '../../../src/web/session/signInRoutes.ts';

const policy = {
  claim: 'groups',
  mapping: [
    { value: 'fleet-viewers', role: 'viewer' as const },
    { value: 'fleet-admins', role: 'admin' as const },
  ],
  defaultRole: 'none' as const,
};

describe('roles from a provider’s claims', () => {
  it('gives the highest role any value of the claim maps to', () => {
    expect(roleFromClaims({ groups: ['fleet-viewers', 'fleet-admins'] }, policy)).to.equal('admin');
    expect(roleFromClaims({ groups: ['staff', 'fleet-viewers'] }, policy)).to.equal('viewer');
  });

  it('reads a single string as one value, and matches exactly', () => {
    expect(roleFromClaims({ groups: 'fleet-admins' }, policy)).to.equal('admin');
    expect(roleFromClaims({ groups: ['Fleet-Admins', 'fleet-admins-old'] }, policy)).to.equal('none');
  });

  it('gives the default role when nothing maps, also for a missing or odd claim', () => {
    expect(roleFromClaims({}, policy)).to.equal('none');
    expect(
      roleFromClaims({ groups: [1, { a: 'fleet-admins' }] }, { ...policy, defaultRole: 'viewer' }),
    ).to.equal('viewer');
  });

  it('names a person by email, else name, else preferred user name, else subject', () => {
    expect(displayNameOf({ email: 'a@x', name: 'A' }, 's')).to.equal('a@x');
    expect(displayNameOf({ name: 'A', preferred_username: 'a' }, 's')).to.equal('A');
    expect(displayNameOf({ preferred_username: 'a' }, 's')).to.equal('a');
    expect(displayNameOf({ email: '' }, 's')).to.equal('s');
  });
});

describe('session lifetimes', () => {
  const lifetimes = { absoluteMs: 12 * 3600_000, idleMs: 3600_000 };
  const session: SignInSession = {
    idHash: 'h',
    origin: 'oidc',
    subject: 's',
    displayName: 'a@x',
    role: 'admin',
    createdAt: 0,
    lastSeenAt: 0,
    expiresAt: lifetimes.absoluteMs,
  };

  it('is live until idle for the idle lifetime', () => {
    expect(isLive(session, 3600_000 - 1, lifetimes)).to.equal(true);
    expect(isLive(session, 3600_000, lifetimes)).to.equal(false);
  });

  it('ends at the absolute lifetime however recently used', () => {
    const used = { ...session, lastSeenAt: lifetimes.absoluteMs - 1 };
    expect(isLive(used, lifetimes.absoluteMs - 1, lifetimes)).to.equal(true);
    expect(isLive(used, lifetimes.absoluteMs, lifetimes)).to.equal(false);
  });

  it('writes a use back at most once a minute', () => {
    expect(isTouchDue(session, 59_999, lifetimes)).to.equal(false);
    expect(isTouchDue(session, 60_000, lifetimes)).to.equal(true);
    expect(isTouchDue(session, 3000, { ...lifetimes, idleMs: 60_000 })).to.equal(true);
  });
});

describe('where a sign-in returns to', () => {
  it('keeps a path of this UI and replaces anything else with /', () => {
    expect(safeReturnTo('/configs/edge?x=1')).to.equal('/configs/edge?x=1');
    for (const bad of [
      '//evil.example/',
      '/\\evil.example',
      'https://evil.example/',
      'configs',
      undefined,
      ['/a'],
    ])
      expect(safeReturnTo(bad), String(bad)).to.equal('/');
  });
});

describe('audit filters', () => {
  const entry: AuditEntry = {
    id: 7,
    at: 1000,
    actor: { kind: 'session', id: 'user-alice', name: 'alice@example.org' },
    action: 'config.update',
    targetKind: 'config',
    target: 'edge',
    via: 'ui',
    detail: 'revision 2',
  };

  it('matches who by part of the name or id in any case, the rest exactly', () => {
    expect(matchesAudit(entry, { who: 'ALICE@' })).to.equal(true);
    expect(matchesAudit(entry, { who: 'user-al' })).to.equal(true);
    expect(matchesAudit(entry, { who: 'bob' })).to.equal(false);
    expect(matchesAudit(entry, { action: 'config.update', target: 'edge' })).to.equal(true);
    expect(matchesAudit(entry, { target: 'edg' })).to.equal(false);
  });

  it('keeps entries from since (inclusive) until (exclusive), and before an id', () => {
    expect(matchesAudit(entry, { since: 1000, until: 1001 })).to.equal(true);
    expect(matchesAudit(entry, { until: 1000 })).to.equal(false);
    expect(matchesAudit(entry, { before: 7 })).to.equal(false);
    expect(matchesAudit(entry, { before: 8 })).to.equal(true);
  });
});
