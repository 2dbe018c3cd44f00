// Several messages of one agent in one socket read (one TCP write carrying several WebSocket frames),
// with a bus that delivers later: ws hands the transport every frame of the read before any event is
// delivered, so the registry has folded none of them when the later ones are decided. The replies
// must still be those of in-order delivery (each message decided after the one before was folded).

import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { asapScheduler, type SchedulerLike } from 'rxjs';
import { createFleetCore, type FleetCore } from '../../../src/fleetCore.ts';
import { decodeServerToAgent, encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { instanceUidBytes } from '../../../src/io/opamp/instanceUid.ts';
import { createOpampServer } from '../../../src/io/opamp/opampServer.ts';
import { description } from '../../support/agentClient.ts';
import { configChanged, revision } from '../../support/configs.ts';
import { uid } from '../../support/events.ts';
import { VirtualClock } from '../../support/virtualTime.ts';

const a = uid(7);
// ReportsStatus | AcceptsRemoteConfig | ReportsHealth | ReportsRemoteConfig
const capabilities = 0x1 | 0x2 | 0x800 | 0x1000;
const message = (fields: Record<string, unknown>) =>
  Buffer.from(encodeAgentToServer({ instanceUid: instanceUidBytes(a), capabilities, ...fields }));

/** Unknown, described (a config is offered), heartbeats, a gap (full state), full state, goodbye, back. */
const conversation = [
  message({ sequenceNum: 0 }),
  message({
    sequenceNum: 1,
    agentDescription: description({ 'service.name': 'c', env: 'prod' }),
    health: { healthy: true },
    remoteConfigStatus: { lastRemoteConfigHash: new Uint8Array(), status: 0 },
  }),
  message({ sequenceNum: 2 }),
  message({ sequenceNum: 9 }),
  message({
    sequenceNum: 10,
    agentDescription: description({ 'service.name': 'c', env: 'prod' }),
    health: { healthy: false },
  }),
  message({ sequenceNum: 11, agentDisconnect: {} }),
  message({ sequenceNum: 12 }),
];

/** A masked client frame (RFC 6455) with the OpAMP header byte; payloads under 64 KiB. */
function clientFrame(payload: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from([0]), payload]);
  const key = Buffer.from([9, 8, 7, 6]);
  const masked = Buffer.from(body.map((b, i) => b ^ key[i & 3]!));
  const length =
    body.length < 126
      ? Buffer.from([0x82, 0x80 | body.length])
      : Buffer.from([0x82, 0x80 | 126, body.length >> 8, body.length & 0xff]);
  return Buffer.concat([length, key, masked]);
}

/** Whole server messages in `bytes` (unmasked frames under 64 KiB; a reply with a tail is two). */
function serverFrames(bytes: Buffer): Buffer[] {
  const messages: Buffer[] = [];
  let parts: Buffer[] = [];
  for (let at = 0; at + 2 <= bytes.length;) {
    const short = bytes[at + 1]! & 0x7f;
    const [length, header] = short === 126 ? [bytes.readUInt16BE(at + 2), 4] : [short, 2];
    if (at + header + length > bytes.length) break;
    parts.push(bytes.subarray(at + header, at + header + length));
    if ((bytes[at]! & 0x80) !== 0) {
      messages.push(Buffer.concat(parts));
      parts = [];
    }
    at += header + length;
  }
  return messages;
}

interface Stack {
  core: FleetCore;
  server: Server;
  client: Socket;
  /** Chunks the server's socket read after the handshake. */
  reads: number;
  received: Buffer;
}

async function start(deliverOn: SchedulerLike | undefined): Promise<Stack> {
  const clock = new VirtualClock(1_000);
  const observer = { messageReceived: () => undefined, messageFailed: () => undefined };
  const core = createFleetCore({
    scheduler: clock.scheduler,
    fleet: { heartbeatIntervalMs: 30_000, staleMissedHeartbeats: 3, requiredAttributes: [] },
    observer,
    onError: (_, error) => {
      throw error;
    },
    ...(deliverOn ? { deliverOn } : {}),
  });
  core.bus.publish(configChanged(revision('base', 'env=prod', 'a: 1\n')));
  await new Promise((resolve) => setImmediate(resolve));
  const opamp = createOpampServer(core.handler, observer, {
    maxMessageBytes: 65_536,
    onError: (error) => {
      throw error;
    },
  });
  const server = createServer();
  const stack = { core, server, reads: 0, received: Buffer.alloc(0) } as Stack;
  server.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    opamp.onUpgrade(req, socket, head);
    socket.on('data', () => stack.reads++);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(client, 'connect');
  client.write(
    'GET /v1/opamp HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
  );
  let head = Buffer.alloc(0);
  while (!head.includes('\r\n\r\n')) head = Buffer.concat([head, (await once(client, 'data'))[0] as Buffer]);
  stack.received = head.subarray(head.indexOf('\r\n\r\n') + 4);
  client.on('data', (chunk: Buffer) => (stack.received = Buffer.concat([stack.received, chunk])));
  stack.client = client;
  return stack;
}

async function repliesOf(stack: Stack, count: number): Promise<string[]> {
  while (serverFrames(stack.received).length < count) await once(stack.client, 'data');
  return serverFrames(stack.received).map((f) => f.subarray(1).toString('hex'));
}

function stop(stack: Stack): void {
  stack.client.destroy();
  stack.server.close();
  stack.core.stop();
}

describe('WebSocket: several messages of one agent in one socket read', () => {
  it('answers them as in-order delivery does, though the bus delivers their events later', async () => {
    // In order: each message sent after the reply to the one before, on a bus that delivers at once.
    const reference = await start(undefined);
    for (let i = 0; i < conversation.length; i++) {
      reference.client.write(clientFrame(conversation[i]!));
      await repliesOf(reference, i + 1);
    }
    const expected = await repliesOf(reference, conversation.length);
    stop(reference);

    const later = await start(asapScheduler);
    later.client.write(Buffer.concat(conversation.map(clientFrame)));
    const got = await repliesOf(later, conversation.length);
    const reads = later.reads;
    stop(later);

    expect(reads, 'the frames arrived in one read').to.equal(1);
    expect(got).to.deep.equal(expected);
    // Sanity: the conversation exercised what order could change: full state asked at first contact
    // and after the gap; the config offered once described, and again on coming back after goodbye.
    const replies = expected.map((hex) => decodeServerToAgent(Buffer.from(hex, 'hex')));
    const asked = replies.map((r) => Number(r.flags ?? 0) === 1);
    expect(asked).to.deep.equal([true, false, false, true, false, false, false]);
    const offered = replies.map((r) => r.remoteConfig !== undefined);
    expect(offered).to.deep.equal([false, true, false, false, false, false, true]);
  });
});
