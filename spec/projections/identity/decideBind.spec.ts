// The binding rule as one pure decision (decideBind.ts), over every credential kind (token, client
// certificate, agent certificate, none) × relation of the id to the credential (own, another's,
// fresh, revoked, renewed). The sequence property (no run of messages lets a credential speak for an
// id it does not hold, over both transports) is spec/fuzz/bindingRule.spec.ts.

import { expect } from 'chai';
import fc from 'fast-check';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { sameHolder, type AgentCredential } from '../../../src/projections/identity/agentCredential.ts';
import type { Binding, IssuedCertificate } from '../../../src/projections/identity/credentialStore.ts';
import { decideBind, namedUid } from '../../../src/projections/identity/decideBind.ts';

const uidA = '0190c5a4-7d2e-7000-8000-00000000000a' as InstanceUid;
const uidB = '0190c5a4-7d2e-7000-8000-00000000000b' as InstanceUid;
const token = (name: string): AgentCredential => ({ kind: 'token', name });
const agentCert = (uid: InstanceUid, serial: string): AgentCredential => ({
  kind: 'agent_certificate',
  name: `spiffe://example.org/agent/${uid}`,
  serial,
});
const bound = (
  uid: InstanceUid,
  credential: AgentCredential | null,
  revokedAt: number | null = null,
): Binding => ({
  uid,
  credential,
  boundAt: 1,
  revokedAt,
  revokedBy: revokedAt === null ? null : 'ops',
});
const record = (
  uid: InstanceUid,
  serial: string,
  issuedTo: AgentCredential | null,
  revokedAt: number | null = null,
): IssuedCertificate => ({
  serial,
  uid,
  notBefore: 0,
  notAfter: 10,
  issuedAt: 1,
  issuedBy: 'x',
  revokedAt,
  issuedTo,
  bounds: { selector: null, gateway: false },
});

describe('decideBind: the binding rule', () => {
  it('lets an agent certificate speak only for the id it names, and move it only from the credential it was issued to', () => {
    const mine = agentCert(uidA, '01');
    const issuedToDev = record(uidA, '01', token('dev'));
    expect(
      decideBind({
        uid: uidA,
        credential: mine,
        existing: bound(uidA, token('dev')),
        certificate: issuedToDev,
      }),
    ).to.deep.equal({ action: 'takeover' });
    for (const existing of [bound(uidB, token('prod')), undefined])
      expect(
        decideBind({ uid: uidB, credential: mine, existing, certificate: issuedToDev }),
        'another id, or a fresh one',
      )
        .to.deep.include({ action: 'refuse' })
        .and.nested.include({ 'outcome.outcome': 'not_named' });
    expect(
      decideBind({
        uid: uidA,
        credential: mine,
        existing: bound(uidA, token('prod')),
        certificate: issuedToDev,
      }),
      'issued to another token than the holder',
    ).to.deep.include({ action: 'refuse', outcome: { outcome: 'bound_elsewhere', holder: token('prod') } });
    expect(
      decideBind({
        uid: uidA,
        credential: mine,
        existing: bound(uidA, token('dev')),
        certificate: undefined,
      }),
    ).to.deep.equal({ action: 'refuse', outcome: { outcome: 'unrecorded' } });
  });

  it('reads the id a certificate names from its SPIFFE id, for agent and client certificates alike', () => {
    expect(namedUid(agentCert(uidA, '01'))).to.equal(uidA);
    expect(namedUid({ kind: 'certificate', name: `spiffe://corp/agent/${uidB.toUpperCase()}` })).to.equal(
      uidB,
    );
    expect(namedUid({ kind: 'certificate', name: 'spiffe://corp/collector/east' })).to.equal(undefined);
    expect(namedUid({ kind: 'agent_certificate', name: 'spiffe://example.org/agent/nope' })).to.equal(null);
    expect(namedUid(token(`spiffe://x/agent/${uidA}`))).to.equal(undefined);
  });

  const kinds = ['token', 'certificate', 'agent_certificate', 'none'] as const;
  const relations = ['own', 'another', 'fresh', 'revoked', 'renewed'] as const;

  it('admits exactly own, fresh and renewed ids for every credential kind, and nothing revoked or held by another', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...kinds),
        fc.constantFrom(...relations),
        fc.boolean(),
        (kind, relation, namesAnId) => {
          // The credential under test, for id A; `another` is someone else's credential.
          const self: AgentCredential | undefined =
            kind === 'none'
              ? undefined
              : kind === 'token'
                ? token('t')
                : kind === 'agent_certificate'
                  ? agentCert(uidA, relation === 'renewed' ? '02' : '01')
                  : {
                      kind: 'certificate',
                      name: namesAnId ? `spiffe://corp/agent/${uidA}` : 'CN=c',
                      serial: '0c',
                    };
          // Renewed: an agent certificate's or client certificate's earlier serial holds the id; a token's
          // agent has moved on to its certificate (the token no longer reaches the id).
          const holderOfA: AgentCredential =
            self === undefined
              ? token('t')
              : relation !== 'renewed'
                ? self
                : self.kind === 'certificate'
                  ? { ...self, serial: '0b' }
                  : agentCert(uidA, '01');
          const another = token('other');
          const existing =
            relation === 'fresh'
              ? undefined
              : relation === 'another'
                ? bound(uidA, another)
                : relation === 'revoked'
                  ? bound(uidA, holderOfA, 5)
                  : bound(uidA, holderOfA);
          const certificate =
            self?.kind === 'agent_certificate'
              ? record(uidA, self.serial!, relation === 'renewed' ? agentCert(uidA, '01') : token('t'))
              : undefined;
          const decision = decideBind({ uid: uidA, credential: self, existing, certificate });
          const admitted = decision.action !== 'refuse';
          if (self === undefined) {
            // No credential: only an id no credential holds, never recorded.
            expect(admitted).to.equal(relation === 'fresh');
            return;
          }
          const expected =
            relation === 'renewed' ? kind !== 'token' : relation !== 'another' && relation !== 'revoked';
          expect(admitted, `${kind} ${relation}`).to.equal(expected);
          if (admitted && existing?.credential) expect(sameHolder(existing.credential, self)).to.equal(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('never admits a credential for an id it does not hold: any binding, any record, any credential', () => {
    const credential = fc.oneof(
      fc.constant(undefined),
      fc.constantFrom(token('a'), token('b')),
      fc.constantFrom<AgentCredential>(
        { kind: 'certificate', name: 'CN=c', serial: '0c' },
        { kind: 'certificate', name: `spiffe://corp/agent/${uidB}`, serial: '0d' },
      ),
      fc.tuple(fc.constantFrom(uidA, uidB), fc.constantFrom('01', '02')).map(([u, s]) => agentCert(u, s)),
    );
    const holder = fc.oneof(
      fc.constant(null),
      credential.filter((c) => c !== undefined),
    );
    fc.assert(
      fc.property(
        credential,
        fc.option(fc.tuple(holder, fc.option(fc.constant(9), { nil: null }))),
        fc.option(fc.tuple(fc.constantFrom(uidA, uidB), holder, fc.option(fc.constant(7), { nil: null }))),
        (self, bindingOf, recordOf) => {
          const existing =
            bindingOf === null
              ? undefined
              : bound(uidA, bindingOf[0] ?? null, bindingOf[0] === null ? 3 : bindingOf[1]);
          const certificate =
            recordOf === null || self?.serial === undefined
              ? undefined
              : record(recordOf[0], self.serial, recordOf[1], recordOf[2]);
          const decision = decideBind({ uid: uidA, credential: self, existing, certificate });
          if (decision.action === 'refuse') return;
          expect(existing?.revokedAt ?? null, 'never a revoked id').to.equal(null);
          const holds = existing?.credential ?? null;
          if (self === undefined) {
            expect(holds, 'no credential: only an unheld id').to.equal(null);
            return;
          }
          const named = namedUid(self);
          if (named !== undefined) expect(named, 'only the id it names').to.equal(uidA);
          if (self.kind === 'agent_certificate')
            expect(certificate?.uid, 'on record for this id').to.equal(uidA);
          if (holds === null || sameHolder(holds, self)) return;
          // Otherwise only the holder moving to the certificate issued to it.
          expect(decision.action).to.equal('takeover');
          expect(certificate?.issuedTo && sameHolder(certificate.issuedTo, holds)).to.equal(true);
          expect(certificate?.revokedAt).to.equal(null);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
