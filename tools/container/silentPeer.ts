// A WebSocket peer that connects, says who it is once, and then never answers anything again: not a
// ping, not the close frame. Some real OpAMP client libraries behave like this at shutdown; a server
// that waits for the close reply waits for the WebSocket library's own timeout. Written on a raw TCP
// socket because every WebSocket client library answers close frames by itself.

import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/** A client frame (RFC 6455 section 5.2): FIN, binary opcode, masked payload. */
function binaryFrame(payload: Uint8Array): Buffer {
  const mask = randomBytes(4);
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.from([0x82, 0x80 | length])
      : length < 65536
        ? Buffer.from([0x82, 0x80 | 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([0x82, 0x80 | 127]), bigEndian64(length)]);
  const masked = Buffer.from(payload);
  for (let i = 0; i < masked.length; i++) masked[i]! ^= mask[i % 4]!;
  return Buffer.concat([header, mask, masked]);
}

function bigEndian64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

export interface SilentPeer {
  /** Resolves when the server has closed the TCP connection (after its close timeout). */
  readonly closed: Promise<void>;
  destroy(): void;
}

/** Upgrades to WebSocket at host:port/path, sends `message` (an OpAMP frame) once, then stays mute. */
export function connectSilentPeer(
  host: string,
  port: number,
  path: string,
  message: Uint8Array,
): Promise<SilentPeer> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, host);
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    let answer = '';
    const onData = (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      if (!answer.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      if (!answer.startsWith('HTTP/1.1 101')) {
        socket.destroy();
        reject(new Error(`upgrade refused: ${answer.split('\r\n')[0]}`));
        return;
      }
      socket.write(binaryFrame(message));
      // Reads everything from now on (so the server's writes never block) and answers nothing.
      socket.on('data', () => undefined);
      resolve({ closed, destroy: () => socket.destroy() });
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.write(
        [
          `GET ${path} HTTP/1.1`,
          `Host: ${host}:${port}`,
          'Upgrade: websocket',
          'Connection: Upgrade',
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
          'Sec-WebSocket-Version: 13',
          '',
          '',
        ].join('\r\n'),
      );
    });
  });
}
