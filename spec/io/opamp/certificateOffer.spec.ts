// The CSR flow on the wire against the running service (agents.ca with OpAMP TLS and enrollment
// tokens): an authenticated agent's CSR is answered with a certificate of the agent CA in
// connection_settings.opamp, over both transports; the certificate then lets the agent in without a
// token, until it is revoked (401 before the upgrade, the live connection closed). Every bad or
// unauthenticated CSR is a ServerErrorResponse BadRequest, counted, with nothing of its message folded.

import { expect } from 'chai';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { decodeServerToAgent } from '../../../src/io/opamp/codec.ts';
import {
  agentMessage,
  description,
  newUid,
  refusedUpgrade,
  WsAgent,
  type ServerToAgent,
} from '../../support/agentClient.ts';
import { opampRefusals } from '../../support/opampRefusals.ts';
import { request } from '../../web/api/apiClient.ts';
import { startApp } from '../../support/startApp.ts';
import { VirtualClock } from '../../support/virtualTime.ts';
import { httpsRequest } from '../tls/httpsClient.ts';
import { opensslCsr, tamper, type TestCsr } from '../tls/testCsr.ts';
import { createPki, type Issued, type TestPki } from '../tls/testPki.ts';
import {
  askCertificate,
  bearer,
  certificateConfig,
  csrMessage,
  offerOf,
  revokeWhileConnected,
  sha256,
  type Offer,
} from './certificateFlow.ts';

describe('certificates issued over OpAMP (agents.ca)', function () {
  this.timeout(20_000);
  let serverPki: TestPki;
  let agentPki: TestPki;
  let app: App;
  let tlsCa: string;
  let csr: TestCsr;

  const config = (tokens: boolean) => certificateConfig(serverPki, agentPki, { tokens });

  before(async () => {
    serverPki = createPki('Server CA');
    agentPki = createPki('Agent CA');
    tlsCa = serverPki.ca.cert;
    csr = opensslCsr(agentPki.dir, 'agent-key');
    app = await startApp({ config: config(true) });
  });
  after(async () => {
    await app?.stop();
    serverPki.cleanup();
    agentPki.cleanup();
  });

  const openWs = (tls: { cert?: string; key?: string } = {}, headers: Record<string, string> = bearer) =>
    WsAgent.open(app.urls.opamp, { ca: tlsCa, headers, ...tls });
  const postHttps = (body: Uint8Array, tls: Partial<Issued> = {}, headers: Record<string, string> = bearer) =>
    httpsRequest(
      `${app.urls.opamp}/v1/opamp`,
      { ca: tlsCa, ...tls },
      {
        method: 'POST',
        body,
        headers: { 'Content-Type': 'application/x-protobuf', ...headers },
      },
    );
  const refusedBy = async (reason: string, act: () => Promise<unknown>) => {
    const before = (await opampRefusals(app))[reason] ?? 0;
    await act();
    return ((await opampRefusals(app))[reason] ?? 0) - before;
  };

  /**
   * Sends `message` on `ws` (then closes it): the reply, or with `followUp` the message after it,
   * and how many refusals for `reason` were counted meanwhile.
   */
  async function refusedOn(ws: WsAgent, reason: string, message: Uint8Array, followUp = false) {
    let answer: ServerToAgent | undefined;
    const counted = await refusedBy(reason, async () => {
      answer = await ws.send(message);
      if (followUp) answer = await ws.next();
    });
    await ws.close();
    return { counted, error: answer?.errorResponse };
  }

  /** Asks over WebSocket: the reply to the message, then the offer that follows it. */
  async function issueOverWs(uid: string): Promise<{ reply: ServerToAgent; offer: Offer; ws: WsAgent }> {
    const ws = await openWs();
    const { reply, offer } = await askCertificate(ws, uid, csr.csrPem);
    expect(offer, 'an offer follows the reply').to.not.equal(undefined);
    return { reply, offer: offer!, ws };
  }

  it('declares AcceptsConnectionSettingsRequest and answers a token-authenticated CSR with a certificate naming the agent', async () => {
    const uid = newUid();
    const { reply, offer, ws } = await issueOverWs(uid);
    await ws.close();
    expect(Number(reply.capabilities) & 0x40, 'AcceptsConnectionSettingsRequest').to.equal(0x40);
    expect(offerOf(reply), 'the reply itself carries no offer').to.equal(undefined);
    expect(app.registry.get(uid as InstanceUid)?.description, 'the report was folded').to.not.equal(
      undefined,
    );

    const certPem = Buffer.from(offer.opamp.certificate.cert).toString();
    const cert = new X509Certificate(certPem);
    expect(cert.subjectAltName).to.equal(`URI:spiffe://example.org/agent/${uid}`);
    expect(cert.verify(new X509Certificate(agentPki.ca.cert).publicKey)).to.equal(true);
    expect(cert.checkPrivateKey(createPrivateKey(csr.keyPem)), "the CSR's key").to.equal(true);
    expect(Date.parse(cert.validTo) - Date.parse(cert.validFrom)).to.be.closeTo(
      24 * 3_600_000 + 300_000,
      1_000,
    );
    expect(Buffer.from(offer.opamp.certificate.caCert).toString()).to.equal(
      new X509Certificate(agentPki.ca.cert).toString(),
    );
    expect(offer.opamp.destinationEndpoint).to.equal(`${app.urls.opamp.replace(/^https/, 'wss')}/v1/opamp`);
    expect(Buffer.from(offer.hash).toString('hex')).to.equal(sha256(certPem));
    expect(Number(offer.opamp.heartbeatIntervalSeconds)).to.be.greaterThan(0);

    const recorded = await app.credentials.certificates(uid as InstanceUid);
    expect(recorded.map((c) => [c.serial, c.issuedBy])).to.deep.equal([
      [cert.serialNumber.toLowerCase(), 'token:fleet-a'],
    ]);
  });

  it('over plain HTTP the offer joins the reply, with the https endpoint', async () => {
    const uid = newUid();
    const answer = await postHttps(csrMessage(uid, csr.csrPem));
    expect(answer.status).to.equal(200);
    const message = decodeServerToAgent(answer.body);
    expect(Buffer.from(message.instanceUid).toString('hex')).to.equal(uid.replaceAll('-', ''));
    const offer = offerOf(message);
    expect(offer?.opamp.destinationEndpoint).to.equal(`${app.urls.opamp}/v1/opamp`);
    const cert = new X509Certificate(Buffer.from(offer!.opamp.certificate.cert));
    expect(cert.subjectAltName).to.equal(`URI:spiffe://example.org/agent/${uid}`);
  });

  it('lets the certificate in without a token as the agent credential, and refuses it once revoked', async () => {
    const uid = newUid();
    const { offer, ws: enrolled } = await issueOverWs(uid);
    await enrolled.close();
    const mine = { cert: Buffer.from(offer.opamp.certificate.cert).toString(), key: csr.keyPem };

    const ws = await openWs(mine, {});
    await ws.send(agentMessage(uid, { agentDescription: description({ 'service.name': 'csr-agent' }) }));
    expect(app.registry.get(uid as InstanceUid)?.session.tlsSubject).to.equal(`CN=${uid}`);

    expect(await revokeWhileConnected(app.urls.ui, uid, ws), 'the live connection closed').to.deep.equal({
      status: 200,
      closeCode: 1008,
    });

    expect(
      await refusedBy('revoked', async () => {
        const upgrade = await refusedUpgrade(app.urls.opamp, bearer, { ca: tlsCa, ...mine });
        expect(upgrade.status, 'upgrade refused, the token notwithstanding').to.equal(401);
        expect((await postHttps(agentMessage(uid), mine, {})).status).to.equal(401);
      }),
    ).to.equal(2);
  });

  it('refuses a CSR that is not one, with BadRequest, counted, nothing folded', async () => {
    const uid = newUid();
    const garbage = csrMessage(uid, 'not a certificate request');
    const { counted, error } = await refusedOn(await openWs(), 'csr_invalid', garbage);
    expect(counted).to.equal(1);
    expect(error?.type).to.equal(1);
    expect(error?.errorMessage).to.match(/^bad CSR: not one PEM CERTIFICATE REQUEST block/);
    expect(app.registry.get(uid as InstanceUid), 'nothing folded').to.equal(undefined);
  });

  it('answers a CSR whose signature does not verify with BadRequest after the reply (WebSocket)', async () => {
    const uid = newUid();
    const forged = csrMessage(uid, tamper(csr.csrPem));
    const { counted, error } = await refusedOn(await openWs(), 'csr_invalid', forged, true);
    expect(counted).to.equal(1);
    expect(error?.errorMessage).to.match(/signature does not verify/);
    expect(await app.credentials.certificates(uid as InstanceUid)).to.deep.equal([]);
  });

  it('lets a connection whose CSR was refused ask again', async () => {
    const uid = newUid();
    const ws = await openWs();
    await ws.send(csrMessage(uid, tamper(csr.csrPem)));
    expect((await ws.next()).errorResponse?.type, 'the forged CSR refused').to.equal(1);
    const { offer } = await askCertificate(ws, uid, csr.csrPem);
    await ws.close();
    expect(offer, 'then a good one signed').to.not.equal(undefined);
    expect(await app.credentials.certificates(uid as InstanceUid)).to.have.length(1);
  });

  it("refuses a CSR for another id from an agent certificate's connection, as any message for it", async () => {
    const { offer, ws: enrolled } = await issueOverWs(newUid());
    await enrolled.close();
    const mine = { cert: Buffer.from(offer.opamp.certificate.cert).toString(), key: csr.keyPem };
    const ask = csrMessage(newUid(), csr.csrPem);
    const { counted, error } = await refusedOn(await openWs(mine, {}), 'uid_not_in_certificate', ask);
    expect(counted).to.equal(1);
    expect(error?.errorMessage).to.match(/speaks only for the instance_uid it names/);
  });

  describe('renewal, in virtual time', () => {
    const hour = 3_600_000;
    let clock: VirtualClock;
    let timed: App;
    before(async () => {
      // The service's clock starts 17 hours back, so the certificates it issues are valid for the real
      // TLS handshake both before and after it moves on to the present.
      clock = new VirtualClock(Date.now() - 17 * hour, { longTimers: true });
      timed = await startApp({ config: config(true), deps: { scheduler: clock.scheduler } });
    });
    after(() => timed?.stop());

    it('signs a new certificate for an agent presenting its own past two thirds of its validity', async () => {
      const uid = newUid();
      const ask = csrMessage(uid, csr.csrPem);
      const enrolling = await WsAgent.open(timed.urls.opamp, { ca: tlsCa, headers: bearer });
      await enrolling.send(ask);
      const first = offerOf(await enrolling.next())!;
      await enrolling.close();
      const firstCert = new X509Certificate(Buffer.from(first.opamp.certificate.cert));

      clock.advance(17 * hour); // 17 of 24 hours: past two thirds
      const mine = { cert: firstCert.toString(), key: csr.keyPem };
      const renewing = await WsAgent.open(timed.urls.opamp, { ca: tlsCa, ...mine });
      await renewing.send(ask);
      const second = offerOf(await renewing.next())!;
      await renewing.close();
      const secondCert = new X509Certificate(Buffer.from(second.opamp.certificate.cert));
      expect(secondCert.serialNumber).to.not.equal(firstCert.serialNumber);
      expect(Date.parse(secondCert.validTo) - Date.parse(firstCert.validTo)).to.be.closeTo(17 * hour, 1_000);
      const recorded = await timed.credentials.certificates(uid as InstanceUid);
      expect(recorded.map((c) => c.issuedBy)).to.deep.equal([
        `agent_certificate:spiffe://example.org/agent/${uid} serial ${firstCert.serialNumber.toLowerCase()}`,
        'token:fleet-a',
      ]);
    });
  });

  describe('without enrollment tokens (agents unauthenticated)', () => {
    let open: App;
    before(async () => {
      open = await startApp({ config: config(false) });
    });
    after(() => open?.stop());

    it('refuses every CSR with BadRequest, counted as csr_unauthenticated', async () => {
      const before = (await opampRefusals(open)).csr_unauthenticated ?? 0;
      const uid = newUid();
      const ws = await WsAgent.open(open.urls.opamp, { ca: tlsCa });
      const reply = await ws.send(csrMessage(uid, csr.csrPem));
      await ws.close();
      expect(reply.errorResponse?.errorMessage).to.match(/only to an authenticated agent/);
      expect((await opampRefusals(open)).csr_unauthenticated).to.equal(before + 1);
      expect(await open.credentials.certificates(uid as InstanceUid)).to.deep.equal([]);
    });

    it('says in /api/status that agent certificates are accepted but nothing is required', async () => {
      expect((await request(`${open.urls.ui}/api/status`)).json).to.have.deep.property(
        'agent_authentication',
        {
          required: false,
          tokens: false,
          client_certificates: false,
          agent_certificates: true,
        },
      );
      expect((await request(`${app.urls.ui}/api/status`)).json).to.have.deep.property(
        'agent_authentication',
        {
          required: true,
          tokens: true,
          client_certificates: false,
          agent_certificates: true,
        },
      );
    });
  });
});
