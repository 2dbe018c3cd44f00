// A WebSocket that keeps sending while its first message waits for the credential store is no longer
// read (back-pressure: svc_opamp_reads_paused_total) rather than closed: nothing it sent is dropped,
// and once the store answers every message is answered, in order, on the same socket. Paused, it is
// not terminated by the liveness sweep, though the pongs to its pings wait unread behind its messages.

import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { asyncScheduler } from 'rxjs';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { createFleetCore, type FleetCore } from '../../../src/fleetCore.ts';
import { createAgentAdmission } from '../../../src/io/opamp/agentAdmission.ts';
import { strictPolicy } from '../../../src/io/opamp/connectionOwners.ts';
import { createEnrollment } from '../../../src/io/opamp/enrollment.ts';
import { frame } from '../../../src/io/opamp/framing.ts';
import { createOpampServer } from '../../../src/io/opamp/opampServer.ts';
import { maxWaiting } from '../../../src/io/opamp/wsTransport.ts';
import type { AgentCredential } from '../../../src/projections/identity/agentCredential.ts';
import type { BindOutcome } from '../../../src/projections/identity/credentialStore.ts';
import { agentMessage, description, newUid, WsAgent } from '../../support/agentClient.ts';
import { VirtualClock } from '../../support/virtualTime.ts';

const token = 'pressure-token-1';
/** Well past the bound, and a few MiB: more than one read of the socket. */
const messages = maxWaiting * 6;
/** The liveness sweep's ping interval (heartbeat interval), in virtual time. */
const interval = 1000;

describe('a WebSocket flooding while its credential is checked', () => {
  let server: Server;
  let core: FleetCore;
  let url: string;
  let closeAll: () => void;
  let release: () => void;
  let binds: number;
  let paused: Promise<'paused'>;

  async function start(clock?: VirtualClock): Promise<void> {
    let held = () => undefined as void;
    const answered = new Promise<void>((resolve) => (held = resolve));
    release = held;
    binds = 0;
    // The store answers nothing until the spec releases it.
    const store = {
      bind: async (uid: InstanceUid, credential: AgentCredential, at: number): Promise<BindOutcome> => {
        binds++;
        await answered;
        return {
          outcome: 'bound',
          binding: { uid, credential, boundAt: at, revokedAt: null, revokedBy: null },
        };
      },
    };
    const admission = createAgentAdmission({
      store,
      cacheMs: 60_000,
      cacheSize: 100,
      onStoreError: () => {},
    });
    core = createFleetCore({
      scheduler: asyncScheduler,
      fleet: {
        heartbeatIntervalMs: 30_000,
        staleMissedHeartbeats: 3,
        requiredAttributes: [],
        ownership: strictPolicy(10),
      },
      admission,
      observer: { messageReceived: () => undefined, messageFailed: () => undefined },
      onError: (_p, error) => {
        throw error;
      },
    });
    let pausedNow = () => undefined as void;
    paused = new Promise((resolve) => (pausedNow = () => resolve('paused')));
    const transportObserver = {
      messageReceived: () => undefined,
      messageFailed: () => undefined,
      readsPaused: () => pausedNow(),
    };
    const opamp = createOpampServer(core.handler, transportObserver, {
      maxMessageBytes: 1 << 20,
      // With a clock, the liveness sweep runs on it, and takes every socket to hold an agent.
      ...(clock && { scheduler: clock.scheduler, idleTimeoutMs: 60_000, pingAfterMs: interval }),
      holdsAgent: () => true,
      onError: (error) => {
        throw error;
      },
      enrollment: createEnrollment([{ name: 'a', sha256: createHash('sha256').update(token).digest('hex') }]),
    });
    closeAll = () => void opamp.ws.closeAll(1001, 'spec over', 1000);
    server = createServer((req, res) => opamp.onRequest(req, res));
    server.on('upgrade', (req, socket: Duplex, head: Buffer) => opamp.onUpgrade(req, socket, head));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  afterEach(async () => {
    release();
    closeAll();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    core.stop();
  });

  /** Opens an agent and sends `messages` messages of one id; resolves once reads paused (or it closed). */
  async function flood(uid: string): Promise<{ agent: WsAgent; closed: Promise<string>; first: string }> {
    const agent = await WsAgent.open(url, { headers: { Authorization: `Bearer ${token}` } });
    const closed = new Promise<string>((resolve) =>
      agent.socket.once('close', (code) => resolve(`closed ${code}`)),
    );
    const padding = 'x'.repeat(1024);
    for (let n = 0; n < messages; n++)
      agent.socket.send(
        frame(
          agentMessage(uid, {
            sequenceNum: n,
            agentDescription: description({ 'service.name': 'flood', pad: padding }),
          }),
        ),
      );

    return { agent, closed, first: await Promise.race([paused, closed]) };
  }

  /** Every reply, in order; rejects if the socket closes first. */
  async function everyReply(agent: WsAgent, closed: Promise<string>) {
    const gone = closed.then((why) => Promise.reject(new Error(why)));
    gone.catch(() => undefined);
    const replies = [];
    for (let n = 0; n < messages; n++) replies.push(await Promise.race([agent.next(), gone]));
    return replies;
  }

  it('stops reading it instead of closing it, and answers every message once the store does', async () => {
    await start();
    const uid = newUid();
    const { agent, closed, first } = await flood(uid);
    expect(first, 'reads paused, socket open').to.equal('paused');
    expect(binds, 'one id: asked once').to.equal(1);
    release();
    const replies = await everyReply(agent, closed);
    expect(replies.filter((r) => r.errorResponse !== undefined)).to.deep.equal([]);
    expect(core.registry.get(uid as InstanceUid)?.sequenceNum, 'every message folded, in order').to.equal(
      BigInt(messages - 1),
    );
    expect(agent.closeCode, 'still open').to.equal(undefined);
    await agent.close();
  });

  it('is neither idle nor gone to the liveness sweep while paused, though its pongs wait unread', async () => {
    const clock = new VirtualClock();
    await start(clock);
    const uid = newUid();
    const { agent, closed, first } = await flood(uid);
    expect(first).to.equal('paused');
    // Pinged every interval; each pong waits behind the unread messages past the pong deadline.
    for (let t = 0; t < 5 * interval; t += interval / 10) clock.advance(interval / 10);
    release();
    const replies = await everyReply(agent, closed);
    expect(replies.filter((r) => r.errorResponse !== undefined)).to.deep.equal([]);
    expect(agent.closeCode, 'still open').to.equal(undefined);
    await agent.close();
  });
});
