// What an accepted socket may cost each listener before it asks anything (src/io/connectionGuard.ts,
// src/listeners.ts): real TLS sockets over loopback against the running service, with a short
// listeners.header_timeout so that each close is awaited, never slept for.

import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { App } from '../../src/app.ts';
import { hardLimitOf } from '../../src/io/connectionGuard.ts';
import { agentMessage, newUid, refusedUpgrade, WsAgent } from '../support/agentClient.ts';
import { startApp } from '../support/startApp.ts';
import { createPki, type TestPki } from './tls/testPki.ts';

const portOf = (url: string) => Number(new URL(url).port);

/** A TLS client whose handshake with the listener at `url` is done; it sends nothing. */
function idleTls(url: string, ca: string): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ port: portOf(url), host: '127.0.0.1', ca }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves once the server has closed `socket` (it is read, so the close is seen). */
function closedByServer(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    socket.on('error', () => undefined);
    if (socket.destroyed) return resolve();
    socket.resume();
    socket.once('close', () => resolve());
  });
}

/** Writes `text` on a fresh socket to `url` (TLS when `ca` is given); everything said until the server closes. */
function exchange(url: string, text: string, ca?: string): Promise<string> {
  return new Promise((resolve) => {
    const port = portOf(url);
    const socket: Socket =
      ca === undefined
        ? connect(port, '127.0.0.1', () => socket.write(text))
        : tlsConnect({ port, host: '127.0.0.1', ca }, () => socket.write(text));
    let said = '';
    socket.on('data', (d: Buffer) => (said += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(said));
  });
}

/** A counter of the server registry, by its exact series text (e.g. 'svc_x_total{reason="y"}'). */
async function counter(app: App, series: string): Promise<number> {
  const text = await app.telemetry.server.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('idle TLS connections on every listener (listeners.header_timeout)', () => {
  let pki: TestPki;
  let app: App;
  before(async () => {
    pki = createPki();
    const server = pki.server();
    const tls = { cert_file: server.certFile, key_file: server.keyFile };
    app = await startApp({
      config: {
        listeners: { header_timeout: '300ms' },
        opamp_tls: tls,
        ui_tls: tls,
        telemetry_tls: tls,
      },
    });
  });
  after(async () => {
    await app?.stop();
    pki.cleanup();
  });

  for (const listener of ['opamp', 'ui', 'telemetry'] as const) {
    it(`closes a ${listener} TLS socket that completed the handshake and sent no request`, async () => {
      const socket = await idleTls(app.urls[listener], pki.ca.cert);
      await closedByServer(socket);
      expect(socket.destroyed).to.equal(true);
    });

    it(`closes a ${listener} socket that never finishes the TLS handshake`, async () => {
      const socket = connect(portOf(app.urls[listener]), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x40])); // a ClientHello record that never comes
      await closedByServer(socket);
    });
  }

  it('counts the OpAMP sockets closed before a request in svc_opamp_refused_total{reason="request_timeout"}', async () => {
    const series = 'svc_opamp_refused_total{reason="request_timeout"}';
    const before = await counter(app, series);
    await closedByServer(await idleTls(app.urls.opamp, pki.ca.cert));
    expect(await counter(app, series)).to.equal(before + 1);
  });

  it('counts the UI and telemetry sockets closed before a request in their refusal metrics', async () => {
    const ui = 'svc_ui_requests_refused_total{reason="request_timeout"}';
    const telemetry = 'svc_telemetry_requests_refused_total{reason="request_timeout"}';
    const [uiBefore, telemetryBefore] = [await counter(app, ui), await counter(app, telemetry)];
    await closedByServer(await idleTls(app.urls.ui, pki.ca.cert));
    await closedByServer(await idleTls(app.urls.telemetry, pki.ca.cert));
    expect(await counter(app, ui)).to.equal(uiBefore + 1);
    expect(await counter(app, telemetry)).to.equal(telemetryBefore + 1);
  });

  it('keeps a TLS agent that asks in time', async () => {
    const agent = await WsAgent.open(app.urls.opamp, { ca: pki.ca.cert });
    try {
      expect((await agent.send(agentMessage(newUid()))).capabilities).to.not.equal(undefined);
    } finally {
      await agent.close();
    }
  });
});

describe('opamp.max_connections counts TLS sockets from accept', () => {
  it('refuses a new agent with 503 while idle TLS sockets fill the limit, and admits one once they close', async () => {
    const pki = createPki();
    const server = pki.server();
    const app = await startApp({
      config: {
        opamp_tls: { cert_file: server.certFile, key_file: server.keyFile },
        opamp: { max_connections: 2 },
      },
    });
    const idle: TLSSocket[] = [];
    try {
      idle.push(await idleTls(app.urls.opamp, pki.ca.cert), await idleTls(app.urls.opamp, pki.ca.cert));
      const series = 'svc_opamp_refused_total{reason="max_connections"}';
      const before = await counter(app, series);
      const refused = await refusedUpgrade(app.urls.opamp, {}, { ca: pki.ca.cert });
      expect(refused.status).to.equal(503);
      expect(refused.headers['retry-after']).to.equal('30');
      expect(await counter(app, series)).to.equal(before + 1);

      await Promise.all(idle.map((s) => new Promise((resolve) => s.once('close', resolve).destroy())));
      // A slot frees once the server has seen the closes; an agent then gets in.
      let admitted: WsAgent | undefined;
      while (admitted === undefined)
        admitted = await WsAgent.open(app.urls.opamp, { ca: pki.ca.cert }).catch(() => undefined);
      await admitted.close();
    } finally {
      for (const s of idle) s.destroy();
      await app.stop();
      pki.cleanup();
    }
  });
});

describe('the OpAMP listener holds at most opamp.max_connections plus a margin of sockets', () => {
  it('closes a connection at accept past the hard limit, counted as max_connections, and admits again once sockets close', async () => {
    const app = await startApp({ config: { opamp: { max_connections: 2 } } });
    const port = portOf(app.urls.opamp);
    const open = (): Promise<Socket> =>
      new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => resolve(socket));
        socket.once('error', reject);
      });
    const held: Socket[] = [];
    try {
      // Idle sockets that have not asked anything: 2 within the limit, then the margin of 16.
      for (let i = 0; i < hardLimitOf(2); i++) held.push(await open());
      const series = 'svc_opamp_refused_total{reason="max_connections"}';
      const before = await counter(app, series);
      const dropped = await open();
      await closedByServer(dropped);
      expect(await counter(app, series)).to.equal(before + 1);

      await Promise.all(held.map((s) => new Promise((resolve) => s.once('close', resolve).destroy())));
      let admitted: WsAgent | undefined;
      while (admitted === undefined) admitted = await WsAgent.open(app.urls.opamp).catch(() => undefined);
      await admitted.close();
    } finally {
      for (const s of held) s.destroy();
      await app.stop();
    }
  });
});

describe('GET, HEAD and OPTIONS with a body', () => {
  let app: App;
  before(async () => {
    app = await startApp();
  });
  after(async () => {
    await app.stop();
  });

  const withBody = (method: string, path: string, extra = '') =>
    `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n${extra}\r\nhello`;

  for (const method of ['GET', 'HEAD', 'OPTIONS']) {
    it(`answers 400 to a ${method} with a body on the OpAMP, UI (/jobs-ui included) and telemetry listeners`, async () => {
      const targets: [string, string][] = [
        [app.urls.opamp, '/v1/opamp'],
        [app.urls.ui, '/'],
        [app.urls.ui, '/jobs-ui/'],
        [app.urls.ui, '/api/agents'],
        [app.urls.telemetry, '/healthz'],
        [app.urls.telemetry, '/metrics'],
      ];
      for (const [url, path] of targets) {
        const said = await exchange(url, withBody(method, path));
        expect(said, `${method} ${url}${path}`).to.match(/^HTTP\/1\.1 400 /);
      }
    });
  }

  it('answers 400 to a WebSocket upgrade that carries a body, before it is upgraded', async () => {
    const upgrade = withBody(
      'GET',
      '/v1/opamp',
      'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n',
    );
    expect(await exchange(app.urls.opamp, upgrade)).to.match(/^HTTP\/1\.1 400 /);
  });

  it('answers a chunked GET with 400 and counts each refusal per listener', async () => {
    const chunked =
      'GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n';
    const series = 'svc_telemetry_requests_refused_total{reason="body_not_allowed"}';
    const before = await counter(app, series);
    expect(await exchange(app.urls.telemetry, chunked)).to.match(/^HTTP\/1\.1 400 /);
    expect(await counter(app, series)).to.equal(before + 1);
    const opamp = 'svc_opamp_refused_total{reason="body_not_allowed"}';
    const opampBefore = await counter(app, opamp);
    await exchange(app.urls.opamp, withBody('GET', '/v1/opamp'));
    expect(await counter(app, opamp)).to.equal(opampBefore + 1);
  });

  it('still serves a GET with no body, or with Content-Length: 0', async () => {
    const said = await exchange(
      app.urls.telemetry,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
    );
    expect(said).to.match(/^HTTP\/1\.1 200 /);
    expect((await fetch(`${app.urls.telemetry}/healthz`)).status).to.equal(200);
  });
});
