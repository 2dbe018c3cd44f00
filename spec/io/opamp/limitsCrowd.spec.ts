import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { frame } from '../../../src/io/opamp/framing.ts';
import { agentMessage, description, newUid, postHttp, WsAgent } from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';

const max = 64 * 1024;
const goodReport = (name: string) => ({
  agentDescription: description({ 'service.name': name }, { 'host.name': `${name}-host` }),
  health: { healthy: true, status: 'running' },
});

async function goodWsAgent(url: string, name: string): Promise<{ uid: string; agent: WsAgent }> {
  const uid = newUid();
  const agent = await WsAgent.open(url);
  await agent.send(agentMessage(uid, { sequenceNum: 0, ...goodReport(name) }));
  for (let seq = 1; seq <= 3; seq++) await agent.send(agentMessage(uid, { sequenceNum: seq }));
  return { uid, agent };
}

async function goodHttpAgent(url: string, name: string): Promise<string> {
  const uid = newUid();
  const r = await postHttp(url, agentMessage(uid, goodReport(name)));
  if (r.status !== 200) throw new Error(`good HTTP agent got ${r.status}`);
  return uid;
}

/** Random binary frames, text frames and empty frames; the socket is left open (or closed by the server). */
async function garbageWs(url: string): Promise<WsAgent> {
  const ws = await WsAgent.open(url);
  for (let i = 0; i < 5; i++) ws.socket.send(randomBytes(1 + ((i * 97) % 2000)));
  ws.socket.send('not protobuf');
  ws.socket.send(new Uint8Array());
  return ws;
}

function oversizeWs(url: string): Promise<number> {
  return WsAgent.open(url).then(
    (ws) =>
      new Promise<number>((resolve) => {
        ws.socket.once('close', (code: number) => resolve(code));
        ws.socket.send(frame(randomBytes(max + 1)));
      }),
  );
}

/** Raw bytes on a TCP connection to the OpAMP port; resolves with what the server said before closing. */
function rawGarbage(url: string, bytes: Buffer): Promise<string> {
  const port = Number(new URL(url).port);
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let said = '';
    socket.on('data', (d: Buffer) => (said += d.toString('latin1')));
    socket.on('close', () => resolve(said));
    socket.on('error', () => undefined);
  });
}

describe('a hostile crowd on the OpAMP listener', () => {
  let app: App;
  before(async () => {
    app = await startApp({ config: { opamp: { max_message_bytes: max, max_connections: 1000 } } });
  });
  after(async () => {
    await app.stop();
  });

  it('serves every good agent and keeps all they reported while garbage and oversize traffic arrives at once', async () => {
    const url = app.urls.opamp;
    const hold: WsAgent[] = [];
    const [wsGood, httpGood, garbage, oversizeCodes, oversizeHttp, bombs, raw] = await Promise.all([
      Promise.all(Array.from({ length: 40 }, (_, i) => goodWsAgent(url, `ws-${i}`))),
      Promise.all(Array.from({ length: 40 }, (_, i) => goodHttpAgent(url, `http-${i}`))),
      Promise.all(Array.from({ length: 20 }, () => garbageWs(url))),
      Promise.all(Array.from({ length: 15 }, () => oversizeWs(url))),
      Promise.all(Array.from({ length: 15 }, () => postHttp(url, randomBytes(max + 1)))),
      Promise.all(
        Array.from({ length: 5 }, () =>
          postHttp(url, gzipSync(Buffer.alloc(16 * 1024 * 1024)), { 'Content-Encoding': 'gzip' }),
        ),
      ),
      Promise.all(
        Array.from({ length: 15 }, (_, i) =>
          rawGarbage(url, i % 2 ? randomBytes(4096) : Buffer.from('GARBAGE\r\n\r\n')),
        ),
      ),
    ]);
    hold.push(...wsGood.map((g) => g.agent), ...garbage);
    try {
      expect(oversizeCodes).to.deep.equal(Array(15).fill(1009));
      expect(oversizeHttp.map((r) => r.status)).to.deep.equal(Array(15).fill(413));
      expect(bombs.map((r) => r.status)).to.deep.equal(Array(5).fill(413));
      for (const said of raw) expect(said === '' || said.startsWith('HTTP/1.1 400')).to.equal(true);

      for (const [i, { uid }] of wsGood.entries()) {
        const agent = app.registry.get(uid as InstanceUid);
        expect(agent?.connected, `ws-${i}`).to.equal(true);
        expect(agent?.description?.identifying['service.name']).to.equal(`ws-${i}`);
        expect(agent?.description?.nonIdentifying['host.name']).to.equal(`ws-${i}-host`);
        expect(agent?.health?.status).to.equal('running');
        expect(agent?.sequenceNum).to.equal(3n);
      }
      for (const [i, uid] of httpGood.entries()) {
        const agent = app.registry.get(uid as InstanceUid);
        expect(agent?.description?.identifying['service.name'], `http-${i}`).to.equal(`http-${i}`);
        expect(agent?.health?.healthy).to.equal(true);
      }
      expect(app.registry.size).to.equal(80);

      // The garbage sockets did not take the good ones down: each good socket still answers.
      const replies = await Promise.all(
        wsGood.map(({ uid, agent }) => agent.send(agentMessage(uid, { sequenceNum: 4 }))),
      );
      expect(replies).to.have.length(40);
    } finally {
      await Promise.all(hold.map((a) => a.close()));
    }
  });
});
