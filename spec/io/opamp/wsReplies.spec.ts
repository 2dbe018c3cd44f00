import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { OpampConnection } from '../../../src/io/opamp/connection.ts';
import type { OpampHandler } from '../../../src/io/opamp/handler.ts';
import { createConnectionIds } from '../../../src/io/opamp/connection.ts';
import { createWsTransport } from '../../../src/io/opamp/wsTransport.ts';

/** A masked client frame (RFC 6455) with the OpAMP header byte before `payload`. */
function clientFrame(payload: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from([0]), payload]);
  const key = Buffer.from([1, 2, 3, 4]);
  const masked = Buffer.from(body.map((b, i) => b ^ key[i & 3]!));
  return Buffer.concat([Buffer.from([0x82, 0x80 | body.length]), key, masked]);
}

/** `payload` after the connection's reply headroom, as the handler encodes replies. */
const withHeadroom = (c: OpampConnection, payload: Uint8Array): Buffer =>
  Buffer.concat([Buffer.alloc(c.replyHeadroom), payload]);

/** Server frames in `bytes` (all short, unmasked). */
function serverFrames(bytes: Buffer): Buffer[] {
  const frames: Buffer[] = [];
  for (let at = 0; at + 2 <= bytes.length;) {
    const length = bytes[at + 1]! & 0x7f;
    frames.push(bytes.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return frames;
}

describe('WebSocket transport: replies and writes', () => {
  let server: Server;
  let serverSocket: Duplex;
  let connection: OpampConnection;
  let writes: number;
  let client: Socket;
  let received: Buffer;

  beforeEach(async () => {
    // A handler that answers every message with its own payload: the transport is under test. As
    // the handler does, it leaves the connection's reply headroom (the framing header) in front.
    const handler: OpampHandler = {
      handle: (c, payload) => ({ ok: true, reply: withHeadroom(c, payload) }),
      closed: () => undefined,
      push: () => false,
    };
    const transport = createWsTransport(
      handler,
      { messageReceived: () => undefined, messageFailed: () => undefined },
      {
        maxMessageBytes: 1024,
        connectionIds: createConnectionIds(),
        onConnection: (_ws, c) => (connection = c),
      },
    );
    server = createServer();
    server.on('upgrade', (req, socket: Duplex, head: Buffer) => {
      serverSocket = socket;
      writes = 0;
      // Every write that reaches the socket's handle, whether one buffer or several at once.
      type Write = (...args: unknown[]) => unknown;
      const s = socket as unknown as Record<'_write' | '_writev', Write>;
      for (const method of ['_write', '_writev'] as const) {
        const original = s[method].bind(socket);
        s[method] = (...args: unknown[]) => {
          writes++;
          return original(...args);
        };
      }
      transport.upgrade(req, socket, head);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    client = connect(port, '127.0.0.1');
    await once(client, 'connect');
    client.write(
      'GET /v1/opamp HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    let head = Buffer.alloc(0);
    while (!head.includes('\r\n\r\n'))
      head = Buffer.concat([head, (await once(client, 'data'))[0] as Buffer]);
    received = head.subarray(head.indexOf('\r\n\r\n') + 4);
    client.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    writes = 0;
  });

  afterEach(() => {
    client.destroy();
    serverSocket.destroy();
    server.close();
  });

  const replies = async (count: number) => {
    while (serverFrames(received).length < count) await once(client, 'data');
    return serverFrames(received).map((f) => f.subarray(1).toString());
  };

  it('answers the frames of one read in one write, in order', async () => {
    client.write(Buffer.concat(['one', 'two', 'three', 'four'].map((s) => clientFrame(Buffer.from(s)))));
    expect(await replies(4)).to.deep.equal(['one', 'two', 'three', 'four']);
    expect(writes).to.equal(1);
  });

  it('sends a reply made outside a read (a push) at once', async () => {
    connection.send!(withHeadroom(connection, Buffer.from('pushed')), undefined);
    expect(await replies(1)).to.deep.equal(['pushed']);
    expect(writes).to.equal(1);
  });
});
