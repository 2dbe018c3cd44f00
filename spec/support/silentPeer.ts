// A WebSocket peer that does the opening handshake, sends one message, and then reads nothing: it
// never answers a ping or the close frame, as a peer behind a dead network path or a client library
// that stops reading does. Built on a bare TCP socket so nothing answers on its behalf.

import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { frame } from '../../src/io/opamp/framing.ts';

/** One client frame: FIN, binary, masked with a zero key (the payload goes as it is). */
function clientFrame(payload: Uint8Array): Buffer {
  if (payload.length >= 126) throw new Error('silentPeer sends short messages only');
  return Buffer.concat([Buffer.from([0x82, 0x80 | payload.length, 0, 0, 0, 0]), payload]);
}

export interface SilentPeer {
  readonly socket: Socket;
  /** Reads again (still answering nothing) and resolves once the server has ended the connection. */
  ended(): Promise<void>;
}

/** Opens the peer at `url` (http://host:port) and sends `message` (an AgentToServer) once upgraded. */
export function openSilentPeer(url: string, message: Uint8Array): Promise<SilentPeer> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const ended = () => {
    socket.resume();
    return closed;
  };
  socket.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    let said = '';
    const onData = (data: Buffer) => {
      said += data.toString('latin1');
      if (!said.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      if (!said.startsWith('HTTP/1.1 101')) return reject(new Error(said.split('\r\n')[0]));
      socket.write(clientFrame(frame(message)));
      // From now on nothing is read: the close frame stays unanswered.
      socket.pause();
      resolve({ socket, ended });
    };
    socket.on('data', onData);
    socket.once('connect', () =>
      socket.write(
        `GET /v1/opamp HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ),
    );
  });
}
