// Whether an agent's CSR is signed: authentication first, then renewal past two thirds of the
// presented certificate's validity, one answer per connection; then one outstanding certificate per id
// and the hourly limit per credential (decideIssue). Pure, in virtual time.

import { expect } from 'chai';
import type { InstanceUid } from '../../../src/events/ids.ts';
import {
  decideCertificate,
  decideIssue,
  needsRenewal,
  type CertificateAsk,
} from '../../../src/projections/identity/decideCertificate.ts';

const uid = '0192f5a0-0000-7000-8000-000000000001' as InstanceUid;
const other = '0192f5a0-0000-7000-8000-000000000002' as InstanceUid;
const day = 86_400_000;
const own = { kind: 'agent_certificate', name: `spiffe://example.org/agent/${uid}`, serial: 'ab' } as const;

const ask = (over: Partial<CertificateAsk> = {}): CertificateAsk => ({
  uid,
  trustDomain: 'example.org',
  credential: { kind: 'token', name: 'fleet-a' },
  presented: undefined,
  issuedOnConnection: false,
  now: 100 * day,
  ...over,
});

describe('deciding on a CSR', () => {
  it('refuses an unauthenticated agent', () => {
    expect(decideCertificate(ask({ credential: undefined }))).to.include({
      action: 'refuse',
      reason: 'csr_unauthenticated',
    });
  });

  it("refuses a certificate of the agent CA that names another agent's id", () => {
    const decision = decideCertificate(
      ask({ credential: { ...own, name: `spiffe://example.org/agent/${other}` } }),
    );
    expect(decision).to.include({ action: 'refuse', reason: 'csr_other_agent' });
    expect(decision.action === 'refuse' && decision.text).to.contain(other);
  });

  it('issues to an agent authenticated with a token or a client certificate', () => {
    expect(decideCertificate(ask())).to.deep.equal({ action: 'issue' });
    const certificate = { kind: 'certificate', name: 'CN=agent-1', serial: '01' } as const;
    expect(decideCertificate(ask({ credential: certificate }))).to.deep.equal({ action: 'issue' });
  });

  it('issues once per connection: a repeated CSR on it gets nothing new', () => {
    expect(decideCertificate(ask({ issuedOnConnection: true }))).to.include({ action: 'keep' });
  });

  it('keeps a presented certificate until two thirds of its validity, then renews it', () => {
    const presented = { notBefore: 0, notAfter: 30 * day };
    const at = (now: number) => decideCertificate(ask({ credential: own, presented, now })).action;
    expect(at(1 * day)).to.equal('keep');
    expect(at(20 * day - 1)).to.equal('keep');
    expect(at(20 * day)).to.equal('issue');
    expect(at(29 * day)).to.equal('issue');
  });

  it('renews at two thirds of any validity', () => {
    expect(needsRenewal(1_000, 4_000, 2_999)).to.equal(false);
    expect(needsRenewal(1_000, 4_000, 3_000)).to.equal(true);
  });
});

describe('deciding whether to issue (one outstanding per id, agents.ca.max_per_hour)', () => {
  const context = (over: Partial<Parameters<typeof decideIssue>[0]> = {}) => ({
    certificates: [],
    issuedLastHour: 0,
    maxPerHour: 10,
    now: 100 * day,
    ...over,
  });
  const current = { notBefore: 99 * day, notAfter: 129 * day, revokedAt: null };

  it('issues a first certificate', () => {
    expect(decideIssue(context()).action).to.equal('issue');
  });

  it('offers nothing while the id has a certificate outstanding and not due, whoever asks', () => {
    expect(decideIssue(context({ certificates: [current] })).action).to.equal('keep');
    expect(decideIssue(context({ certificates: [current], now: 119 * day })).action).to.equal('issue');
  });

  it('does not count a revoked or expired certificate as outstanding', () => {
    const revoked = { ...current, revokedAt: 99 * day };
    const expired = { notBefore: 0, notAfter: 30 * day, revokedAt: null };
    expect(decideIssue(context({ certificates: [revoked] })).action).to.equal('issue');
    expect(decideIssue(context({ certificates: [expired] })).action).to.equal('issue');
  });

  it('refuses a credential at its hourly limit', () => {
    expect(decideIssue(context({ issuedLastHour: 9 })).action).to.equal('issue');
    expect(decideIssue(context({ issuedLastHour: 10 }))).to.include({
      action: 'refuse',
      reason: 'csr_rate_limited',
    });
  });
});
