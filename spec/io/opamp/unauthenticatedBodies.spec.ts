// A plain-HTTP OpAMP request that presented no credential gets opamp.max_unauthenticated_message_bytes
// and opamp.unauthenticated_body_timeout, not max_message_bytes and the 60 s request timeout; its
// socket is closed with the answer, so nothing more of its body is read or held.

import { expect } from 'chai';
import { connect } from 'node:net';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { agentMessage, newUid, postHttp } from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';
import { sha256 } from './certificateFlow.ts';

const kib = 1024;

/** An AgentToServer reporting one effective config file of `size` bytes. */
const withConfig = (uid: string, size: number) =>
  agentMessage(uid, {
    effectiveConfig: { configMap: { configMap: { '': { body: Buffer.alloc(size, 'a') } } } },
  });

/**
 * Sends the headers of a POST declaring `declared` body bytes, then `sent` of them, and keeps the
 * socket open: what the server said, once it has closed the connection.
 */
function partialPost(app: App, declared: number, sent: number, headers = ''): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(app.urls.opamp).port), '127.0.0.1', () => {
      socket.write(
        `POST /v1/opamp HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n${headers}Content-Length: ${declared}\r\n\r\n`,
      );
      socket.write(Buffer.alloc(sent));
    });
    let said = '';
    socket.on('data', (d: Buffer) => (said += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(said));
  });
}

describe('plain-HTTP OpAMP bodies without a credential', () => {
  let app: App;
  before(async () => {
    app = await startApp({
      config: {
        opamp: { unauthenticated_body_timeout: '300ms', max_unauthenticated_message_bytes: '64KiB' },
      },
    });
  });
  after(async () => {
    await app.stop();
  });

  it('serves an unauthenticated message within 64 KiB and refuses one over it with 413', async () => {
    const uid = newUid();
    expect((await postHttp(app.urls.opamp, withConfig(uid, 60 * kib))).status).to.equal(200);
    expect(app.registry.get(uid as InstanceUid)).to.not.equal(undefined);
    const over = await postHttp(app.urls.opamp, withConfig(newUid(), 65 * kib));
    expect(over.status).to.equal(413);
    expect(over.text).to.include('without a credential');
  });

  it('serves a 200 KiB first report without a credential on the defaults, a large effective config as real agents send', async () => {
    const defaults = await startApp();
    try {
      const uid = newUid();
      expect((await postHttp(defaults.urls.opamp, withConfig(uid, 200 * kib))).status).to.equal(200);
      expect(defaults.registry.get(uid as InstanceUid)).to.not.equal(undefined);
    } finally {
      await defaults.stop();
    }
  });

  it('answers 32 declared 15 MiB bodies with 413 at once and closes each connection without holding the body', async () => {
    const said = await Promise.all(
      Array.from({ length: 32 }, () => partialPost(app, 15 * 1024 * kib, 4 * kib)),
    );
    for (const s of said) expect(s).to.match(/^HTTP\/1\.1 413 /);
  });

  it('closes a streamed (chunked) body as soon as it passes the bound', async () => {
    const said = await new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(app.urls.opamp).port), '127.0.0.1', () => {
        socket.write(
          'POST /v1/opamp HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nTransfer-Encoding: chunked\r\n\r\n',
        );
        const chunk = Buffer.alloc(16 * kib);
        // 80 KiB of a body that never ends: the server must not wait for the rest.
        for (let i = 0; i < 5; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString()}\r\n`);
      });
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.on('error', () => undefined);
      socket.once('close', () => resolve(text));
    });
    expect(said).to.match(/^HTTP\/1\.1 413 /);
  });

  it('answers 408 and closes a body that does not arrive within opamp.unauthenticated_body_timeout', async () => {
    expect(await partialPost(app, 1000, 10)).to.match(/^HTTP\/1\.1 408 /);
  });
});

describe('plain-HTTP OpAMP bodies with a credential', () => {
  it('keeps opamp.max_message_bytes for a request with an enrollment token', async () => {
    const token = 'bodies-token-1';
    const app = await startApp({
      config: {
        agents: { tokens: [{ name: 'fleet', sha256: sha256(token) }] },
        opamp: { unauthenticated_body_timeout: '300ms' },
      },
    });
    try {
      const uid = newUid();
      const r = await postHttp(app.urls.opamp, withConfig(uid, 512 * kib), {
        Authorization: `Bearer ${token}`,
      });
      expect(r.status).to.equal(200);
      expect(app.registry.get(uid as InstanceUid)?.effectiveConfig).to.not.equal(undefined);
      // Without the token the request is refused before its body (401), as before.
      expect((await postHttp(app.urls.opamp, withConfig(newUid(), 512 * kib))).status).to.equal(401);
    } finally {
      await app.stop();
    }
  });
});
