// The real Collector over TLS with a client certificate (opamp_tls with a client CA) and an agent
// token (agents.tokens): the supervisor and the opamp extension configured as docs/interop.md says
// (ca_file, cert_file, key_file, and the token in `headers`) connect over wss:// and https://, the
// service records the certificate's subject, and a token it does not know is refused.

import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { App } from '../../src/app.ts';
import { opampRefusals } from '../support/opampRefusals.ts';
import { startApp } from '../support/startApp.ts';
import { eventually } from '../persistence/eventually.ts';
import { createPki, type TestPki } from '../io/tls/testPki.ts';
import {
  startCollectorWithExtension,
  startSupervisor,
  type PeerTls,
  type RunningPeer,
  type Transport,
} from './support/collectorPeers.ts';
import { agentWhen, apiGet } from './support/fleetApi.ts';

const token = 'edge-fleet-token-5f1c';
const headers = { Authorization: `Bearer ${token}` };

describe('the OpenTelemetry Collector over OpAMP mTLS with an agent token (real peers)', function () {
  this.timeout(120_000);
  let pki: TestPki;
  let app: App;
  let tls: PeerTls;
  let peer: RunningPeer | undefined;
  before(async () => {
    pki = createPki('Fleet CA');
    const server = pki.server();
    const client = pki.issue('edge-collector-1');
    tls = { ca_file: pki.ca.certFile, cert_file: client.certFile, key_file: client.keyFile };
    app = await startApp({
      config: {
        opamp_tls: { cert_file: server.certFile, key_file: server.keyFile, client_ca_file: pki.ca.certFile },
        agents: {
          tokens: [{ name: 'edge-fleet', sha256: createHash('sha256').update(token).digest('hex') }],
        },
      },
    });
  });
  after(async () => {
    await app?.stop();
    pki.cleanup();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && peer) console.log(peer.process.output().slice(-8_000));
    await peer?.stop();
    peer = undefined;
  });

  const cases: [string, Transport, typeof startSupervisor][] = [
    ['the supervisor over wss://', 'ws', startSupervisor],
    ['the supervisor over https://', 'http', startSupervisor],
    ['the opamp extension over wss://', 'ws', startCollectorWithExtension],
    ['the opamp extension over https://', 'http', startCollectorWithExtension],
  ];
  for (const [name, transport, start] of cases) {
    it(`${name} connects with its certificate and token, and reports`, async function () {
      peer = await start(this, { transport, opampUrl: app.urls.opamp, tls, headers });
      const agent = await agentWhen(app, peer.uid, (a) => a.health_reported === true, `${name} to report`);
      expect(agent.connection).to.include({ transport });
      expect(String((agent.connection as { tls_subject: string }).tls_subject)).to.match(
        /CN=edge-collector-1/,
      );
    });

    it(`${name} with a token the service does not know is refused`, async function () {
      const before = (await opampRefusals(app)).unknown_credential ?? 0;
      const wrong = { Authorization: 'Bearer not-a-fleet-token' };
      peer = await start(this, { transport, opampUrl: app.urls.opamp, tls, headers: wrong });
      await eventually(
        async () => ((await opampRefusals(app)).unknown_credential ?? 0) > before,
        `${name} to be refused`,
      );
      expect((await apiGet(app, `/api/agents/${peer.uid}`)).status).to.equal(404);
    });
  }
});
