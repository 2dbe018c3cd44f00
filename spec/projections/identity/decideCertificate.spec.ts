// Whether an agent's CSR is signed: authentication first, then renewal past two thirds of the
// presented certificate's validity, one certificate per connection. Pure, in virtual time.

import { expect } from 'chai';
import type { InstanceUid } from '../../../src/events/ids.ts';
import {
  decideCertificate,
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
