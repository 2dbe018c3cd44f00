import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { decodeServerToAgent } from '../../../src/io/opamp/codec.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { agentMessage, description, newUid, WsAgent } from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';
import { httpsRequest } from './httpsClient.ts';
import { createPki, type Issued, type TestPki } from './testPki.ts';

const post = (app: App, tls: { ca: string; cert?: string; key?: string }, body: Uint8Array) =>
  httpsRequest(`${app.urls.opamp}/v1/opamp`, tls, {
    method: 'POST',
    body,
    headers: { 'Content-Type': 'application/x-protobuf' },
  });

describe('OpAMP listener under mTLS (opamp_tls.client_ca_file)', () => {
  let pki: TestPki;
  let stranger: TestPki;
  let app: App;
  let agent: Issued;
  let foreign: Issued;

  before(async () => {
    pki = createPki();
    stranger = createPki('Stranger CA');
    const server = pki.server();
    agent = pki.issue('agent-1', { sans: ['URI:spiffe://example.org/agents/agent-1'] });
    foreign = stranger.issue('agent-2');
    app = await startApp({
      config: {
        opamp_tls: { cert_file: server.certFile, key_file: server.keyFile, client_ca_file: pki.ca.certFile },
      },
    });
  });
  after(async () => {
    await app?.stop();
    pki.cleanup();
    stranger.cleanup();
  });

  it('rejects a WebSocket client without a certificate at the handshake', async () => {
    let failure: unknown;
    try {
      const ws = await WsAgent.open(app.urls.opamp, { ca: pki.ca.cert });
      // TLS 1.3 reports the missing certificate after the client's handshake completes: the first read fails.
      await Promise.race([
        ws.send(agentMessage(newUid())),
        new Promise((_, reject) => ws.socket.once('error', reject)),
      ]);
    } catch (error) {
      failure = error;
    }
    expect(String(failure)).to.match(/certificate required|ECONNRESET|socket hang up/i);
    expect(app.registry.size).to.equal(0);
  });

  it('rejects plain-HTTP clients without a certificate or with one from an unknown CA', async () => {
    for (const tls of [{ ca: pki.ca.cert }, { ca: pki.ca.cert, cert: foreign.cert, key: foreign.key }]) {
      let failure: unknown;
      await post(app, tls, agentMessage(newUid())).catch((error: unknown) => {
        failure = error;
      });
      expect(String(failure)).to.match(/certificate|ECONNRESET|socket hang up/i);
    }
    expect(app.registry.size).to.equal(0);
  });

  it('records the verified certificate subject as tls_subject, on both transports', async () => {
    const wsUid = newUid();
    const ws = await WsAgent.open(app.urls.opamp, { ca: pki.ca.cert, cert: agent.cert, key: agent.key });
    try {
      await ws.send(agentMessage(wsUid, { agentDescription: description({ 'service.name': 'a' }) }));
      expect(app.registry.get(wsUid as InstanceUid)?.session.tlsSubject).to.equal('CN=agent-1,O=Spec');
    } finally {
      await ws.close();
    }
    const httpUid = newUid();
    const r = await post(app, { ca: pki.ca.cert, cert: agent.cert, key: agent.key }, agentMessage(httpUid));
    expect(r.status).to.equal(200);
    expect(app.registry.get(httpUid as InstanceUid)?.session.tlsSubject).to.equal('CN=agent-1,O=Spec');
  });
});

describe('svc_config_info under OpAMP TLS', () => {
  it('reports tls_enabled and mtls_enabled for the OpAMP listener', async () => {
    const pki = createPki();
    const server = pki.server();
    const tlsOnly = await startApp({
      config: { opamp_tls: { cert_file: server.certFile, key_file: server.keyFile } },
    });
    const mtls = await startApp({
      config: {
        opamp_tls: { cert_file: server.certFile, key_file: server.keyFile, client_ca_file: pki.ca.certFile },
      },
    });
    try {
      const infoOf = async (app: App) =>
        (await (await fetch(`${app.urls.telemetry}/metrics`)).text())
          .split('\n')
          .find((l) => l.startsWith('svc_config_info'));
      expect(await infoOf(tlsOnly))
        .to.include('tls_enabled="true"')
        .and.include('mtls_enabled="false"');
      expect(await infoOf(mtls))
        .to.include('tls_enabled="true"')
        .and.include('mtls_enabled="true"');
    } finally {
      await Promise.all([tlsOnly.stop(), mtls.stop()]);
      pki.cleanup();
    }
  });
});

describe('OpAMP listener under TLS without a client CA', () => {
  it('serves agents without a certificate and records no tls_subject', async () => {
    const pki = createPki();
    const server = pki.server();
    const app = await startApp({
      config: { opamp_tls: { cert_file: server.certFile, key_file: server.keyFile } },
    });
    try {
      expect(app.urls.opamp).to.match(/^https:/);
      const uid = newUid();
      const r = await post(app, { ca: pki.ca.cert }, agentMessage(uid));
      expect(r.status).to.equal(200);
      expect(decodeServerToAgent(r.body).capabilities).to.equal(String(0x1 | 0x2 | 0x4 | 0x10));
      expect(app.registry.get(uid as InstanceUid)?.session.tlsSubject).to.equal(null);
    } finally {
      await app.stop();
      pki.cleanup();
    }
  });
});
