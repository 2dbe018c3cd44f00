import { expect } from 'chai';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import WebSocket from 'ws';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { frame } from '../../../src/io/opamp/framing.ts';
import {
  agentMessage,
  description,
  newUid,
  postHttp,
  refusedUpgrade as refused,
  WsAgent,
} from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';
import { VirtualClock } from '../../support/virtualTime.ts';

/** An AgentToServer of exactly `size` protobuf bytes (a description attribute padded to fit). */
function messageOfSize(uid: string, size: number): Uint8Array {
  for (let pad = Math.max(0, size - 64); pad <= size; pad++) {
    const bytes = agentMessage(uid, {
      agentDescription: description({ 'service.name': 'p', pad: 'x'.repeat(pad) }),
    });
    if (bytes.length === size) return bytes;
    if (bytes.length > size) break;
  }
  throw new Error(`no message of exactly ${size} bytes`);
}

const closeCodeOf = (ws: WsAgent): Promise<number> =>
  new Promise((resolve) => {
    if (ws.closeCode !== undefined) resolve(ws.closeCode);
    else ws.socket.once('close', (code: number) => resolve(code));
  });

/** Opens a WebSocket that the server refuses; resolves with the HTTP status and Retry-After. */
async function refusedUpgrade(url: string): Promise<{ status: number; retryAfter: string | undefined }> {
  const { status, headers } = await refused(url);
  return { status, retryAfter: headers['retry-after'] };
}

async function messageErrors(app: App): Promise<number> {
  const text = await (await fetch(`${app.urls.telemetry}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('svc_opamp_message_errors_total'));
  return Number(line?.split(' ')[1]);
}

describe('opamp.max_message_bytes', () => {
  const max = 1024;
  let app: App;
  before(async () => {
    app = await startApp({ config: { opamp: { max_message_bytes: max } } });
  });
  after(async () => {
    await app.stop();
  });

  it('accepts an HTTP body of exactly the limit and answers 413 without a retry hint one byte over', async () => {
    const at = await postHttp(app.urls.opamp, messageOfSize(newUid(), max));
    expect(at.status).to.equal(200);
    const errorsBefore = await messageErrors(app);
    const over = await postHttp(app.urls.opamp, messageOfSize(newUid(), max + 1));
    expect(over.status).to.equal(413);
    expect(over.headers.get('retry-after')).to.equal(null);
    expect(await messageErrors(app)).to.equal(errorsBefore + 1);
  });

  it('applies the limit after gzip decompression, at its edge', async () => {
    const gzip = { 'Content-Encoding': 'gzip' };
    expect((await postHttp(app.urls.opamp, gzipSync(messageOfSize(newUid(), max)), gzip)).status).to.equal(
      200,
    );
    const over = await postHttp(app.urls.opamp, gzipSync(messageOfSize(newUid(), max + 1)), gzip);
    expect(over.status).to.equal(413);
    expect(over.headers.get('retry-after')).to.equal(null);
  });

  it('cuts a gzip bomb off at the limit and keeps serving', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024)); // 64 MiB of zeros in ~64 KiB: larger than the limit
    const small = gzipSync(Buffer.alloc(256 * 1024)); // fits the raw limit, inflates past it
    expect(small.length).to.be.below(max);
    for (const body of [bomb, small]) {
      expect((await postHttp(app.urls.opamp, body, { 'Content-Encoding': 'gzip' })).status).to.equal(413);
    }
    expect((await postHttp(app.urls.opamp, agentMessage(newUid()))).status).to.equal(200);
  });

  it('serves a WebSocket message of exactly the limit and closes with 1009 one byte over', async () => {
    const ws = await WsAgent.open(app.urls.opamp);
    const uid = newUid();
    await ws.send(messageOfSize(uid, max));
    expect(app.registry.get(uid as InstanceUid)?.description?.identifying['service.name']).to.equal('p');
    const errorsBefore = await messageErrors(app);
    ws.socket.send(frame(messageOfSize(uid, max + 1)));
    expect(await closeCodeOf(ws)).to.equal(1009);
    expect(await messageErrors(app)).to.equal(errorsBefore + 1);
  });

  it('closes with 1009 on a header-less (legacy) frame one byte over the limit', async () => {
    const ws = await WsAgent.open(app.urls.opamp);
    await ws.send(messageOfSize(newUid(), max), { legacy: true });
    ws.socket.send(messageOfSize(newUid(), max + 1));
    expect(await closeCodeOf(ws)).to.equal(1009);
  });
});

describe('opamp.max_connections', () => {
  it('refuses new upgrades and HTTP requests with 503 and Retry-After at the limit, and keeps serving open agents', async () => {
    const app = await startApp({ config: { opamp: { max_connections: 2 } } });
    const agents: WsAgent[] = [];
    try {
      agents.push(await WsAgent.open(app.urls.opamp), await WsAgent.open(app.urls.opamp));
      const refused = await refusedUpgrade(app.urls.opamp);
      expect(refused).to.deep.equal({ status: 503, retryAfter: '30' });
      const http = await postHttp(app.urls.opamp, agentMessage(newUid()));
      expect(http.status).to.equal(503);
      expect(http.headers.get('retry-after')).to.equal('30');

      const uid = newUid();
      const reply = await agents[0]!.send(
        agentMessage(uid, { agentDescription: description({ 'service.name': 'kept' }) }),
      );
      expect(reply.capabilities).to.equal(String(0x1 | 0x2 | 0x4 | 0x10));
      expect(app.registry.get(uid as InstanceUid)?.connected).to.equal(true);

      await agents.pop()!.close();
      // A slot frees once the server has seen the close; a new agent then gets in.
      let admitted: WsAgent | undefined;
      while (admitted === undefined) admitted = await WsAgent.open(app.urls.opamp).catch(() => undefined);
      agents.push(admitted);
      expect((await admitted.send(agentMessage(newUid()))).capabilities).to.equal(
        String(0x1 | 0x2 | 0x4 | 0x10),
      );
    } finally {
      await Promise.all(agents.map((a) => a.close()));
      await app.stop();
    }
  });
});

describe('opamp.max_connections with plain-HTTP requests in flight', () => {
  it('counts a request whose body is still arriving, and frees the slot when its connection closes', async () => {
    const app = await startApp({ config: { opamp: { max_connections: 1 } } });
    const body = agentMessage(newUid());
    const socket = connect(Number(new URL(app.urls.opamp).port), '127.0.0.1');
    try {
      const answered = new Promise<string>((resolve) => {
        let said = '';
        socket.on('data', (d: Buffer) => {
          said += d.toString('latin1');
          if (said.includes('\r\n\r\n')) resolve(said);
        });
      });
      socket.write(
        `POST /v1/opamp HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      socket.write(body.subarray(0, 3));
      // Once the server has seen the request, the slot is taken: upgrades are refused.
      let refused: { status: number; retryAfter: string | undefined } | undefined;
      while (refused === undefined) refused = await refusedUpgrade(app.urls.opamp).catch(() => undefined);
      expect(refused).to.deep.equal({ status: 503, retryAfter: '30' });
      socket.write(body.subarray(3));
      expect(await answered).to.match(/^HTTP\/1\.1 200/);
      // Every socket counts from accept to close (a keep-alive one too): the agent hangs up.
      await new Promise((resolve) => socket.once('close', resolve).destroy());
      let admitted: WsAgent | undefined;
      while (admitted === undefined) admitted = await WsAgent.open(app.urls.opamp).catch(() => undefined);
      await admitted.close();
    } finally {
      socket.destroy();
      await app.stop();
    }
  });
});

describe('idle WebSocket eviction (virtual time)', () => {
  it('closes a WebSocket that holds no agent and sends no message past the eviction threshold, keeping a chatty one', async () => {
    const clock = new VirtualClock();
    // Eviction threshold: heartbeat 1s × 3 missed heartbeats = 3s.
    const app = await startApp({
      config: { fleet: { heartbeat_interval: '1s', stale_missed_heartbeats: 3 } },
      deps: { scheduler: clock.scheduler },
    });
    const silent = await WsAgent.open(app.urls.opamp);
    const chatty = await WsAgent.open(app.urls.opamp);
    try {
      const uid = newUid();
      await chatty.send(agentMessage(uid));
      // Chatty speaks within every heartbeat interval: never pinged, never idle.
      for (let sequenceNum = 1; sequenceNum <= 3; sequenceNum++) {
        clock.advance(900);
        await chatty.send(agentMessage(uid, { sequenceNum })); // a round trip: a close frame would have arrived
      }
      expect(silent.socket.readyState).to.equal(WebSocket.OPEN); // silent for 2.7s
      clock.advance(400); // silent: 3.1s; chatty: 0.4s since its last message
      expect(await closeCodeOf(silent)).to.equal(1000);
      expect((await chatty.send(agentMessage(uid, { sequenceNum: 4 }))).capabilities).to.equal(undefined);
      expect(chatty.socket.readyState).to.equal(WebSocket.OPEN);
    } finally {
      await Promise.all([silent.close(), chatty.close()]);
      await app.stop();
    }
  });
});
