// The real Collector over TLS with a client certificate (opamp_tls with a client CA): the supervisor
// and the opamp extension configured as docs/interop.md says (ca_file, cert_file, key_file) connect
// over wss:// and https://, and the service records the certificate's subject.

import { expect } from 'chai';
import type { App } from '../../src/app.ts';
import { startApp } from '../support/startApp.ts';
import { createPki, type TestPki } from '../io/tls/testPki.ts';
import {
  startCollectorWithExtension,
  startSupervisor,
  type PeerTls,
  type RunningPeer,
  type Transport,
} from './support/collectorPeers.ts';
import { agentWhen } from './support/fleetApi.ts';

describe('the OpenTelemetry Collector over OpAMP mTLS (real peers)', function () {
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
    it(`${name} connects with its certificate and reports`, async function () {
      peer = await start(this, { transport, opampUrl: app.urls.opamp, tls });
      const agent = await agentWhen(app, peer.uid, (a) => a.health_reported === true, `${name} to report`);
      expect(agent.connection).to.include({ transport });
      expect(String((agent.connection as { tls_subject: string }).tls_subject)).to.match(
        /CN=edge-collector-1/,
      );
    });
  }
});
