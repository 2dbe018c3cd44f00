// A WebSocket's messages keep their order while the first message of an id waits for the credential
// store (agentAdmission.ts, wsTransport.ts): the later ones wait behind it, ask nothing of the store,
// and are answered in order once it answers; a store that fails refuses the message (Unavailable,
// counted) and the connection goes on.

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
import type { AgentCredential } from '../../../src/projections/identity/agentCredential.ts';
import type { BindOutcome } from '../../../src/projections/identity/credentialStore.ts';
import { agentMessage, newUid, WsAgent } from '../../support/agentClient.ts';

const token = 'order-token-1';
const Unavailable = 2;

interface Pending {
  readonly uid: InstanceUid;
  readonly settle: (outcome: BindOutcome | Error) => void;
}

/** A credential store whose every bind waits until the spec settles it. */
function heldStore() {
  const calls: Pending[] = [];
  const waiters: (() => void)[] = [];
  return {
    calls,
    /** Resolves once `n` binds were asked. */
    asked: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (calls.length >= n ? resolve() : waiters.push(check));
        check();
      }),
    bind: (uid: InstanceUid, credential: AgentCredential, at: number) =>
      new Promise<BindOutcome>((resolve, reject) => {
        const binding = { uid, credential, boundAt: at, revokedAt: null, revokedBy: null };
        calls.push({
          uid,
          settle: (o) => (o instanceof Error ? reject(o) : resolve(o ?? { outcome: 'bound', binding })),
        });
        waiters.splice(0).forEach((w) => w());
      }),
    bound: (uid: InstanceUid): BindOutcome => ({
      outcome: 'bound',
      binding: {
        uid,
        credential: { kind: 'token', name: 'a' },
        boundAt: 0,
        revokedAt: null,
        revokedBy: null,
      },
    }),
  };
}

describe('messages waiting for the credential store', () => {
  let server: Server;
  let core: FleetCore;
  let url: string;
  let store: ReturnType<typeof heldStore>;
  let refused: string[];
  let closeAll: () => void;
  /** Resolves when the transport has read a text frame (counted and skipped as it arrives). */
  let textFrameRead: Promise<void>;

  beforeEach(async () => {
    store = heldStore();
    refused = [];
    let read = () => undefined as void;
    textFrameRead = new Promise<void>((resolve) => (read = resolve));
    const admission = createAgentAdmission({
      store,
      cacheMs: 60_000,
      cacheSize: 100,
      onStoreError: () => undefined,
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
      observer: {
        messageReceived: () => undefined,
        messageFailed: () => undefined,
        refused: (r) => void refused.push(r),
      },
      onError: (_p, error) => {
        throw error;
      },
    });
    const transportObserver = {
      messageReceived: () => undefined,
      messageFailed: (reason: string) => (reason === 'text frame' ? read() : undefined),
    };
    const opamp = createOpampServer(core.handler, transportObserver, {
      maxMessageBytes: 1 << 20,
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
  });
  afterEach(async () => {
    closeAll();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    core.stop();
  });

  it('asks the store once per id and answers the messages that waited, in order', async () => {
    const uid = newUid() as InstanceUid;
    const agent = await WsAgent.open(url, { headers: { Authorization: `Bearer ${token}` } });
    for (const n of [0, 1, 2]) agent.socket.send(frame(agentMessage(uid, { sequenceNum: n })));
    // Frames are read in order: once the text frame is, the two messages after the first have been.
    agent.socket.send('marker');
    await textFrameRead;
    expect(
      store.calls.map((c) => c.uid),
      'the later two did not ask',
    ).to.deep.equal([uid]);
    store.calls[0]!.settle(store.bound(uid));
    const replies = [await agent.next(), await agent.next(), await agent.next()];
    expect(replies.map((r) => r.errorResponse)).to.deep.equal([undefined, undefined, undefined]);
    expect(core.registry.get(uid)?.sequenceNum, 'folded in order').to.equal(2n);
    agent.socket.send(frame(agentMessage(uid, { sequenceNum: 3 })));
    await agent.next();
    expect(store.calls, 'a held id never asks again on its connection').to.have.length(1);
    await agent.close();
  });

  it('refuses a message whose store failed, with Unavailable and a retry, and serves the next', async () => {
    const uid = newUid() as InstanceUid;
    const agent = await WsAgent.open(url, { headers: { Authorization: `Bearer ${token}` } });
    agent.socket.send(frame(agentMessage(uid, { sequenceNum: 0 })));
    await store.asked(1);
    store.calls[0]!.settle(new Error('connection refused'));
    const refusal = await agent.next();
    expect(refusal.errorResponse).to.deep.include({ type: Unavailable });
    expect(refusal.errorResponse?.retryInfo?.retryAfterNanoseconds).to.equal('30000000000');
    expect(refused).to.deep.equal(['credential_store_unavailable']);
    expect(core.registry.get(uid), 'nothing folded').to.equal(undefined);
    agent.socket.send(frame(agentMessage(uid, { sequenceNum: 1 })));
    await store.asked(2);
    store.calls[1]!.settle(store.bound(uid));
    expect((await agent.next()).errorResponse).to.equal(undefined);
    expect(core.registry.get(uid)?.sequenceNum).to.equal(1n);
    await agent.close();
  });
});
