// The CSR flow end to end with opamp-go's client code (tools/peers/agent with -csr, on opamp-go's
// client library): the agent enrols with a token, sends a CSR, gets a certificate of the agent CA in
// connection_settings.opamp, reconnects to the offered endpoint over mTLS with it, and is then known
// by that certificate; once revoked, its live connection is closed and its next one refused with 401.
// The binding rule (issue 29) with real client code: the enrolling token's selector travels with the
// certificate (recorded with it, and the certificate's descriptions are checked against it: the
// agent's matches and it is served), and the certificate moves the id from exactly that token.

import { expect } from 'chai';
import { createHash, randomUUID } from 'node:crypto';
import type { App } from '../../src/app.ts';
import type { InstanceUid } from '../../src/events/ids.ts';
import { apiToken } from '../support/apiTokens.ts';
import { opampRefusals } from '../support/opampRefusals.ts';
import { startApp } from '../support/startApp.ts';
import { createPki, type TestPki } from '../io/tls/testPki.ts';
import { opampEndpoint, type Transport } from './support/collectorPeers.ts';
import { agentWhen, type Json } from './support/fleetApi.ts';
import { startPeer, type PeerProcess } from './support/peerProcess.ts';
import { peerBinary } from './support/peers.ts';

const token = 'enroll-interop-7d21';
const adminToken = 'admin-interop-token';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const tlsSubject = (a: Json) => (a.connection as Json | undefined)?.tls_subject;
/** A serial as Go's %x prints a big.Int: lowercase hex without leading zeros. */
const goHex = (serial: string) => serial.replace(/^0+/, '');

describe("certificates over OpAMP with opamp-go's client (real peer)", function () {
  this.timeout(120_000);
  let serverPki: TestPki;
  let agentPki: TestPki;
  let app: App;
  let agent: PeerProcess | undefined;

  before(async () => {
    serverPki = createPki('Server CA');
    agentPki = createPki('Agent CA');
    const server = serverPki.server();
    app = await startApp({
      config: {
        opamp_tls: { cert_file: server.certFile, key_file: server.keyFile },
        auth: { api_tokens: [apiToken('ops', adminToken, 'admin')] },
        agents: {
          tokens: [{ name: 'fleet-a', sha256: sha256(token), selector: 'service.name=csr-agent' }],
          ca: {
            cert_file: agentPki.ca.certFile,
            key_file: agentPki.ca.keyFile,
            trust_domain: 'example.org',
            validity: '24h',
          },
        },
      },
    });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && agent) console.log(agent.output().slice(-6_000));
    await agent?.stop();
    agent = undefined;
  });
  after(async () => {
    await app?.stop();
    serverPki?.cleanup();
    agentPki?.cleanup();
  });

  for (const transport of ['ws', 'http'] as Transport[]) {
    it(`over ${transport}: enrols with a token, reconnects with the issued certificate, and is refused once revoked`, async function () {
      const uid = randomUUID();
      const args = [
        ...['-endpoint', opampEndpoint(app.urls.opamp, transport), '-instance-uid', uid],
        ...['-ca-file', serverPki.ca.certFile, '-header', `Authorization: Bearer ${token}`],
        ...['-heartbeat', '1s', '-service-name', 'csr-agent', '-csr'],
      ];
      agent = startPeer(peerBinary(this, 'agent'), args, serverPki.dir);

      const received = await agent.waitForLine(/certificate received/);
      expect(received).to.contain(`spiffe://example.org/agent/${uid}`);
      const reconnected = await agent.waitForLine(/reconnected with certificate to/);
      expect(reconnected).to.contain(opampEndpoint(app.urls.opamp, transport));

      // Known by its certificate: the connection's verified subject is the one the CA wrote.
      const shown = await agentWhen(app, uid, (a) => tlsSubject(a) === `CN=${uid}`, 'the mTLS connection');
      expect(shown.connection).to.include({ transport });
      const issued = await app.credentials.certificates(uid as InstanceUid);
      expect(issued).to.have.length(1);
      expect(issued[0]).to.include({ issuedBy: 'token:fleet-a', revokedAt: null });
      expect(issued[0]).to.deep.include({
        issuedTo: { kind: 'token', name: 'fleet-a' },
        bounds: { selector: 'service.name=csr-agent', gateway: false },
      });
      const binding = await app.credentials.binding(uid as InstanceUid);
      expect(binding?.credential, 'moved from its token to its certificate').to.include({
        kind: 'agent_certificate',
        name: `spiffe://example.org/agent/${uid}`,
      });
      expect(received).to.contain(`serial=${goHex(issued[0]!.serial)}`);

      const refusedBefore = (await opampRefusals(app)).revoked ?? 0;
      const revoked = await fetch(`${app.urls.ui}/api/agents/${uid}/revoke`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${adminToken}` },
      });
      expect(revoked.status).to.equal(200);
      await agent.waitForLine(/status=401|server: 401/);
      expect((await opampRefusals(app)).revoked).to.be.greaterThan(refusedBefore);
      const [certificate] = await app.credentials.certificates(uid as InstanceUid);
      expect(certificate?.revokedAt).to.be.a('number');
    });
  }
});
