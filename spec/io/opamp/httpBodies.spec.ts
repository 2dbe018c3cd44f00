// A plain-HTTP body is read the same whatever its framing (bodyReader.ts): in one read with its
// headers, in many reads with a Content-Length (copied into one buffer of that length), or chunked
// without one (joined at its end). Each message must arrive whole and in order.

import { expect } from 'chai';
import { connect } from 'node:net';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { agentMessage, newUid } from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';

/** A config text in which every position differs from its neighbours, so a misplaced piece shows. */
const patterned = (size: number): string =>
  Array.from({ length: size }, (_, i) => String.fromCharCode(97 + ((i * 7 + (i >> 10)) % 26))).join('');

const withConfig = (uid: string, text: string) =>
  agentMessage(uid, { effectiveConfig: { configMap: { configMap: { '': { body: Buffer.from(text) } } } } });

/** Writes `pieces` one at a time (each flushed before the next) and resolves with the status line. */
function rawPost(app: App, pieces: readonly (string | Buffer)[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const writeAll = async () => {
      for (const piece of pieces)
        await new Promise<void>((done) => socket.write(piece, () => setImmediate(done)));
    };
    const socket = connect(Number(new URL(app.urls.opamp).port), '127.0.0.1', () => void writeAll());
    let said = '';
    socket.on('data', (d: Buffer) => {
      said += d.toString('latin1');
      if (said.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(said.slice(0, said.indexOf('\r\n')));
      }
    });
    socket.on('error', reject);
  });
}

const head = (framing: string) =>
  `POST /v1/opamp HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n${framing}\r\n`;

function split(body: Uint8Array, parts: number): Buffer[] {
  const step = Math.ceil(body.length / parts);
  return Array.from({ length: parts }, (_, i) => Buffer.from(body.subarray(i * step, (i + 1) * step)));
}

describe('plain-HTTP OpAMP bodies in pieces', () => {
  let app: App;
  before(async () => {
    app = await startApp();
  });
  after(async () => {
    await app.stop();
  });

  const configOf = (uid: string) => app.registry.get(uid as InstanceUid)?.effectiveConfig?.['']?.body;

  it('joins a body with a Content-Length sent in several pieces, whole and in order', async () => {
    const uid = newUid();
    const text = patterned(150 * 1024);
    const body = withConfig(uid, text);
    const status = await rawPost(app, [head(`Content-Length: ${body.length}\r\n`), ...split(body, 7)]);
    expect(status).to.equal('HTTP/1.1 200 OK');
    expect(configOf(uid)).to.equal(text);
  });

  it('joins a chunked body without a Content-Length, whole and in order', async () => {
    const uid = newUid();
    const text = patterned(40 * 1024);
    const chunks = split(withConfig(uid, text), 5).map((c) =>
      Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]),
    );
    const status = await rawPost(app, [head('Transfer-Encoding: chunked\r\n'), ...chunks, '0\r\n\r\n']);
    expect(status).to.equal('HTTP/1.1 200 OK');
    expect(configOf(uid)).to.equal(text);
  });

  it('reads a small body that comes in the same write as its headers', async () => {
    const uid = newUid();
    const body = withConfig(uid, 'small');
    const status = await rawPost(app, [
      Buffer.concat([Buffer.from(head(`Content-Length: ${body.length}\r\n`)), body]),
    ]);
    expect(status).to.equal('HTTP/1.1 200 OK');
    expect(configOf(uid)).to.equal('small');
  });
});
