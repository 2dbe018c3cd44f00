import { expect } from 'chai';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import {
  closeServer,
  createPlainServer,
  createTlsServer,
  listen,
  type ListenerTimeouts,
} from '../../src/io/listen.ts';
import { serverTlsOptions } from '../../src/io/tls/serverOptions.ts';
import { createPki } from './tls/testPki.ts';

const short: ListenerTimeouts = { headersMs: 300, requestMs: 600, keepAliveMs: 200, checkEveryMs: 50 };

/** Writes `text` on a raw TCP socket and collects everything until the server closes it. */
function rawExchange(server: Server, text: string): Promise<string> {
  const { port } = server.address() as { port: number };
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

describe('listener timeouts', () => {
  let server: Server;
  beforeEach(async () => {
    server = await listen(
      createPlainServer((_req, res) => res.end('ok'), short),
      '127.0.0.1:0',
    );
  });
  afterEach(async () => {
    await closeServer(server);
  });

  it('answers 408 and closes a client whose headers never finish', async () => {
    const reply = await rawExchange(server, 'GET / HTTP/1.1\r\nHost: x\r\n');
    expect(reply).to.match(/^HTTP\/1\.1 408/);
  });

  it('closes a client whose body never finishes', async () => {
    const server2 = await listen(
      createPlainServer((req, res) => {
        req.resume();
        req.on('end', () => res.end('ok'));
      }, short),
      '127.0.0.1:0',
    );
    try {
      const reply = await rawExchange(
        server2,
        'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly ten b',
      );
      expect(reply).to.not.include('ok');
    } finally {
      await closeServer(server2);
    }
  });

  it('closes an idle keep-alive connection after a served request', async () => {
    const reply = await rawExchange(server, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(reply).to.match(/^HTTP\/1\.1 200/);
  });

  it('drops a TLS client that never completes the handshake', async () => {
    const pki = createPki();
    const tls = await listen(
      createTlsServer(
        (_req, res) => res.end('ok'),
        { ...serverTlsOptions('ui', { ...pki.server(), ca: undefined }), handshakeTimeout: 200 },
        short,
      ),
      '127.0.0.1:0',
    );
    try {
      expect(await rawExchange(tls, '')).to.equal('');
    } finally {
      await closeServer(tls);
      pki.cleanup();
    }
  });
});
