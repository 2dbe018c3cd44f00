// The CSR flow keeps no record of its own of what each connection was issued: it asks
// connectionOwners.ts, where a connection's certificates go with what it was admitted for (issue 29).
// Real agent CA, real credential store (memory) and real owners; the connection is a gateway's
// WebSocket, which stays open when one of its agents is revoked.
// Over the wire the stale mark the CSR flow kept before (a WeakMap that revocation never cleared) is
// not observable: a revoked id is refused by the admission before its CSR reaches the offers, and an
// id that moved to another credential is refused to the old one. This spec drives the offers
// directly, past the admission, to show that the mark they consult is the one revocation clears.

import { expect } from 'chai';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { createCertificateOffers, type CertificateOffers } from '../../../src/io/opamp/certificateOffer.ts';
import { decodeServerToAgent } from '../../../src/io/opamp/codec.ts';
import { createConnection, createConnectionIds } from '../../../src/io/opamp/connection.ts';
import { createConnectionOwners, type ConnectionOwners } from '../../../src/io/opamp/connectionOwners.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import { createAgentCa } from '../../../src/io/tls/agentCa.ts';
import { readAgentCa } from '../../../src/io/tls/agentCaFiles.ts';
import { createMemoryCredentialStore } from '../../../src/projections/identity/memoryCredentialStore.ts';
import { instanceUidBytes } from '../../../src/io/opamp/instanceUid.ts';
import { opensslCsr } from '../tls/testCsr.ts';
import { createPki, type TestPki } from '../tls/testPki.ts';

const uid = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' as InstanceUid;
const nextId = createConnectionIds();
const gatewaySocket = () => {
  const connection = createConnection('ws', '127.0.0.1:1', null, nextId(), {
    credential: { kind: 'token', name: 'fleet-a' },
    url: 'wss://opamp.example/v1/opamp',
    gateway: true,
  });
  connection.isGateway = true;
  return connection;
};

describe('certificates issued on a connection, as connectionOwners records them', function () {
  this.timeout(20_000);
  let pki: TestPki;
  let csr: Uint8Array;
  const now = Date.now();

  before(() => {
    pki = createPki('Agent CA');
    csr = Buffer.from(opensslCsr(pki.dir, 'agent').csrPem);
  });
  after(() => pki.cleanup());

  function offers(maxPerHour = 10) {
    const { material } = readAgentCa({
      cert_file: pki.ca.certFile,
      key_file: pki.ca.keyFile,
      trust_domain: 'example.org',
      validity: 86_400_000,
    });
    const store = createMemoryCredentialStore();
    const refusals: string[] = [];
    const certificates = createCertificateOffers({
      ca: createAgentCa(material!, { trustDomain: 'example.org', validityMs: 86_400_000 }),
      store,
      maxPerHour,
      refused: (reason) => refusals.push(reason),
      heartbeatIntervalMs: 30_000,
      logger: silentLogger(),
    });
    return { certificates, store, refusals, owners: createConnectionOwners() };
  }

  /** What the offers answer a CSR for `uid` on `connection`: the offered certificate's PEM, or undefined. */
  async function ask(
    certificates: CertificateOffers,
    owners: ConnectionOwners,
    connection: ReturnType<typeof gatewaySocket>,
    at = now,
  ): Promise<string | undefined> {
    const answer = certificates.answer(connection, owners, uid, instanceUidBytes(uid), csr, at);
    if ('refused' in answer) throw new Error(answer.refused);
    const after = await answer.after;
    if (after === undefined) return undefined;
    const cert = decodeServerToAgent(after).connectionSettings?.opamp?.certificate?.cert;
    return cert === undefined ? undefined : Buffer.from(cert).toString();
  }

  it('answers a connection once, marked in the owners, and again once a revocation dropped the mark', async () => {
    const { certificates, store, owners } = offers();
    const gateway = gatewaySocket();
    owners.admit(uid, gateway);
    const first = await ask(certificates, owners, gateway);
    expect(first).to.match(/BEGIN CERTIFICATE/);
    expect(owners.wasIssued(uid, gateway), 'recorded with the connection').to.equal(true);
    expect(await ask(certificates, owners, gateway), 'answered once on this connection').to.equal(undefined);

    // The revocation: the store marks the id and its certificates, the owners drop what the gateway
    // was admitted for. Its socket stays open; nothing of the id is left on it.
    await store.revoke(uid, 'ops', now + 1);
    owners.revokeAdmissions(uid);
    expect(owners.wasIssued(uid, gateway)).to.equal(false);
    // With the old per-offer WeakMap, the mark outlived the revocation and this answered nothing.
    const again = await ask(certificates, owners, gateway, now + 2);
    expect(again, 'no certificate outstanding: a new one').to.match(/BEGIN CERTIFICATE/);
    expect(again).to.not.equal(first);
  });

  it('drops the mark of a certificate not issued after all, and every mark of a connection that closed', async () => {
    const limited = offers(0);
    const gateway = gatewaySocket();
    limited.owners.admit(uid, gateway);
    expect(await ask(limited.certificates, limited.owners, gateway)).to.equal(undefined);
    expect(limited.refusals).to.deep.equal(['csr_rate_limited']);
    expect(limited.owners.wasIssued(uid, gateway), 'free to ask again').to.equal(false);

    const { certificates, owners } = offers();
    owners.admit(uid, gateway);
    expect(await ask(certificates, owners, gateway)).to.match(/BEGIN CERTIFICATE/);
    owners.releaseAll(gateway);
    expect(owners.wasIssued(uid, gateway)).to.equal(false);
  });
});
