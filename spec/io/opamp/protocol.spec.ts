import { expect } from 'chai';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import WebSocket from 'ws';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { agentMessage, description, newUid, postHttp, WsAgent } from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';

const ulid = '01JD8X7Q9Z3K5M7N9P1R3T5V7W';
const toHex = (bytes: unknown) => Buffer.from(bytes as Uint8Array).toString('hex');
const uidHex = (uid: string) =>
  uid.length === 26 ? Buffer.from(uid).toString('hex') : uid.replaceAll('-', '');

describe('OpAMP listener over loopback', () => {
  let app: App;
  beforeEach(async () => {
    app = await startApp({ config: { fleet: { required_attributes: ['env'] } } });
  });
  afterEach(async () => {
    await app.stop();
  });

  describe('WebSocket', () => {
    it('echoes instance_uid, sends server capabilities on the first reply only, and frames every reply', async () => {
      const agent = await WsAgent.open(app.urls.opamp);
      const raw: Buffer[] = [];
      agent.socket.on('message', (d: Buffer) => raw.push(d));
      const uid = newUid();
      const first = await agent.send(
        agentMessage(uid, { agentDescription: description({ 'service.name': 'otelcol' }) }),
      );
      const second = await agent.send(agentMessage(uid, { sequenceNum: 1 }));
      expect(toHex(first.instanceUid)).to.equal(uidHex(uid));
      expect(first.capabilities).to.equal(String(0x1 | 0x2 | 0x4 | 0x10));
      expect(second.capabilities).to.equal(undefined);
      expect(raw.map((b) => b[0])).to.deep.equal([0, 0]);
      await agent.close();
    });

    it('accepts legacy frames without the header', async () => {
      const agent = await WsAgent.open(app.urls.opamp);
      const uid = newUid();
      const reply = await agent.send(agentMessage(uid, { agentDescription: description({ a: 'b' }) }), {
        legacy: true,
      });
      expect(toHex(reply.instanceUid)).to.equal(uidHex(uid));
      expect(app.registry.get(uid as InstanceUid)?.description?.identifying).to.deep.equal({ a: 'b' });
      await agent.close();
    });

    it('skips text frames and garbage, keeps the connection open and serves the next message', async () => {
      const agent = await WsAgent.open(app.urls.opamp);
      agent.socket.send('hello', { binary: false });
      agent.socket.send(Buffer.from([0x00, 0xff, 0xff, 0xff, 0xff]));
      const uid = newUid();
      const reply = await agent.send(agentMessage(uid));
      expect(toHex(reply.instanceUid)).to.equal(uidHex(uid));
      expect(agent.closeCode).to.equal(undefined);
      await agent.close();
    });

    it('answers a bad instance_uid with a BadRequest error and stores nothing', async () => {
      const agent = await WsAgent.open(app.urls.opamp);
      const reply = await agent.send(encodeAgentToServer({ instanceUid: Buffer.alloc(5), capabilities: 1 }));
      expect(reply.errorResponse).to.deep.include({ type: 1 });
      expect(app.registry.size).to.equal(0);
      await agent.close();
    });

    it('registers a legacy ULID agent under its ULID and echoes the bytes unchanged', async () => {
      const agent = await WsAgent.open(app.urls.opamp);
      const reply = await agent.send(
        agentMessage(ulid, { agentDescription: description({ 'service.name': 'old' }) }),
      );
      expect(toHex(reply.instanceUid)).to.equal(uidHex(ulid));
      expect(app.registry.get(ulid as InstanceUid)).to.not.equal(undefined);
      await agent.close();
    });

    it('asks for full state until a description arrives, then stops asking', async () => {
      const agent = await WsAgent.open(app.urls.opamp);
      const uid = newUid();
      expect((await agent.send(agentMessage(uid))).flags).to.equal('1');
      expect((await agent.send(agentMessage(uid, { sequenceNum: 1 }))).flags).to.equal('1');
      const described = await agent.send(
        agentMessage(uid, { sequenceNum: 2, agentDescription: description({ env: 'p' }) }),
      );
      expect(described.flags).to.equal(undefined);
      expect((await agent.send(agentMessage(uid, { sequenceNum: 3 }))).flags).to.equal(undefined);
      await agent.close();
    });

    it('refuses upgrades on any other path with 501', async () => {
      const ws = new WebSocket(`${app.urls.opamp.replace('http', 'ws')}/v2/opamp`);
      const status = await new Promise<number>((resolve) =>
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
      );
      expect(status).to.equal(501);
    });
  });

  describe('plain HTTP', () => {
    it('answers with exactly application/x-protobuf and server capabilities on every reply', async () => {
      const uid = newUid();
      for (const sequenceNum of [0, 1]) {
        const r = await postHttp(
          app.urls.opamp,
          agentMessage(uid, { sequenceNum, agentDescription: description({ env: 'x' }) }),
        );
        expect(r.status).to.equal(200);
        expect(r.headers.get('content-type')).to.equal('application/x-protobuf');
        expect(r.message?.capabilities).to.equal(String(0x1 | 0x2 | 0x4 | 0x10));
      }
      expect(app.registry.get(uid as InstanceUid)?.session.transport).to.equal('http');
    });

    it('accepts a gzip-encoded body, and answers a short reply as it is even when gzip is accepted', async () => {
      const uid = newUid();
      const body = gzipSync(agentMessage(uid, { agentDescription: description({ 'service.name': 'gz' }) }));
      const res = await rawPost(app.urls.opamp, body, {
        'Content-Encoding': 'gzip',
        'Accept-Encoding': 'gzip',
      });
      expect(res.status).to.equal(200);
      // A status reply is a few dozen bytes: gzip would only make it longer (gzipMinBytes).
      expect(res.headers['content-encoding']).to.equal(undefined);
      expect(app.registry.get(uid as InstanceUid)?.description?.identifying['service.name']).to.equal('gz');
    });

    it('answers 400 to an undecodable body and to a bad instance_uid, and keeps serving', async () => {
      expect((await postHttp(app.urls.opamp, Buffer.from([0xff, 0xff, 0xff]))).status).to.equal(400);
      expect(
        (await postHttp(app.urls.opamp, encodeAgentToServer({ instanceUid: Buffer.alloc(3) }))).status,
      ).to.equal(400);
      expect((await postHttp(app.urls.opamp, agentMessage(ulid))).status).to.equal(200);
      expect(app.registry.size).to.equal(1);
    });

    it('treats only the exact protobuf content type as plain HTTP', async () => {
      const res = await fetch(`${app.urls.opamp}/v1/opamp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-protobuf; charset=binary' },
        body: agentMessage(newUid()),
      });
      expect(res.status).to.equal(415);
    });

    it('answers 501 on any other path', async () => {
      for (const path of ['/', '/v1/opamp/x', '/metrics']) {
        expect((await fetch(`${app.urls.opamp}${path}`, { method: 'POST' })).status).to.equal(501);
      }
    });
  });
});

function rawPost(base: string, body: Uint8Array, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>(
    (resolve, reject) => {
      const req = request(
        `${base}/v1/opamp`,
        { method: 'POST', headers: { 'Content-Type': 'application/x-protobuf', ...headers } },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
        },
      );
      req.on('error', reject);
      req.end(body);
    },
  );
}
