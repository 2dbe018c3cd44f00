// Own telemetry and the CSR flow in one ServerToAgent (docs/own-telemetry.md "With agent
// certificates"): the certificate offer that answers a CSR also carries the agent's own-telemetry
// settings, and its hash covers both, so the plain-HTTP reply that joins the two messages (the agent
// merges them) states one consistent offer.

import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { decodeServerToAgent } from '../../../src/io/opamp/codec.ts';
import { agentMessage, description, newUid, WsAgent } from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';
import { httpsRequest } from '../tls/httpsClient.ts';
import { opensslCsr, type TestCsr } from '../tls/testCsr.ts';
import { createPki, type TestPki } from '../tls/testPki.ts';
import { bearer, certificateConfig, sha256 } from './certificateFlow.ts';

const ReportsOwnMetrics = 0x40;
const endpoint = 'https://otlp.example:4318/v1/metrics';

type Settings = {
  hash: Uint8Array;
  opamp?: { certificate: { cert: Uint8Array } };
  ownMetrics?: { destinationEndpoint: string };
};
const settingsOf = (m: { connectionSettings?: unknown }) => m.connectionSettings as Settings | undefined;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('own telemetry with a certificate offer (agents.ca)', function () {
  this.timeout(20_000);
  let serverPki: TestPki;
  let agentPki: TestPki;
  let app: App;
  let csr: TestCsr;

  before(async () => {
    serverPki = createPki('Server CA');
    agentPki = createPki('Agent CA');
    csr = opensslCsr(agentPki.dir, 'agent-key');
    const extra = { own_telemetry: [{ selector: 'service.name=csr-agent', metrics: { endpoint } }] };
    app = await startApp({ config: certificateConfig(serverPki, agentPki, { extra }) });
  });
  after(async () => {
    await app?.stop();
    serverPki.cleanup();
    agentPki.cleanup();
  });

  const csrMessage = (uid: string) =>
    agentMessage(uid, {
      capabilities: 0x1 | ReportsOwnMetrics,
      agentDescription: description({ 'service.name': 'csr-agent' }),
      connectionSettingsRequest: { opamp: { certificateRequest: { csr: Buffer.from(csr.csrPem) } } },
    });
  /** The hash of a certificate offer that also carries the own-telemetry offer `ownHash`. */
  const combined = (certPem: string, ownHash: string) => sha256(`${certPem}\n${ownHash}`);

  it('over WebSocket: the reply offers own telemetry, the certificate offer then carries both under one hash', async () => {
    const ws = await WsAgent.open(app.urls.opamp, { ca: serverPki.ca.cert, headers: bearer });
    try {
      const reply = settingsOf(await ws.send(csrMessage(newUid())))!;
      expect(reply.ownMetrics?.destinationEndpoint).to.equal(endpoint);
      expect(reply.opamp).to.equal(undefined);
      const offer = settingsOf(await ws.next())!;
      const certPem = Buffer.from(offer.opamp!.certificate.cert).toString();
      expect(offer.ownMetrics?.destinationEndpoint).to.equal(endpoint);
      expect(hex(offer.hash)).to.equal(combined(certPem, hex(reply.hash)));
    } finally {
      await ws.close();
    }
  });

  it('over plain HTTP: the joined reply holds the certificate and own telemetry under the combined hash', async () => {
    const uid = newUid();
    const answer = await httpsRequest(
      `${app.urls.opamp}/v1/opamp`,
      { ca: serverPki.ca.cert },
      {
        method: 'POST',
        body: csrMessage(uid),
        headers: { 'Content-Type': 'application/x-protobuf', ...bearer },
      },
    );
    expect(answer.status).to.equal(200);
    const offer = settingsOf(decodeServerToAgent(answer.body))!;
    const certPem = Buffer.from(offer.opamp!.certificate.cert).toString();
    expect(new X509Certificate(certPem).subjectAltName).to.match(/^URI:spiffe:\/\/example.org\/agent\//);
    expect(offer.ownMetrics?.destinationEndpoint).to.equal(endpoint);
    const ownHash = app.registry.get(uid as InstanceUid)?.offeredSettingsHash;
    expect(ownHash).to.be.a('string');
    expect(hex(offer.hash)).to.equal(combined(certPem, ownHash!));
  });
});
