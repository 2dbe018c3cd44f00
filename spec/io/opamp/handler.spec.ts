import { expect } from 'chai';
import { asapScheduler } from 'rxjs';
import { createEventBus, type EventBusOptions } from '../../../src/events/bus.ts';
import { createEncoder, decodeServerToAgent, encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { createConnection, createConnectionIds } from '../../../src/io/opamp/connection.ts';
import { createCommandQueue } from '../../../src/io/opamp/commandQueue.ts';
import { createConnectionOwners } from '../../../src/io/opamp/connectionOwners.ts';
import { createDecoder } from '../../../src/io/opamp/decoder.ts';
import { createOpampHandler, handledNow } from '../../../src/io/opamp/handler.ts';
import { instanceUidBytes } from '../../../src/io/opamp/instanceUid.ts';
import { createRegistryProjection } from '../../../src/projections/registry/registryProjection.ts';
import { description } from '../../support/agentClient.ts';
import { uid } from '../../support/events.ts';

const nextId = createConnectionIds();

const a = uid(7);
const ReportsStatus = 0x1;
const ReportsHealth = 0x800;
const capabilities = ReportsStatus | ReportsHealth;
const message = (fields: Record<string, unknown>) =>
  encodeAgentToServer({ instanceUid: instanceUidBytes(a), capabilities, ...fields });

/** One agent's conversation: unknown, described, heartbeats, a gap, full state, goodbye. */
const conversation = [
  message({ sequenceNum: 0 }),
  message({
    sequenceNum: 1,
    agentDescription: description({ 'service.name': 'c' }),
    health: { healthy: true },
  }),
  message({ sequenceNum: 2 }),
  message({ sequenceNum: 9 }),
  message({
    sequenceNum: 10,
    agentDescription: description({ 'service.name': 'c' }),
    health: { healthy: true },
  }),
  message({ sequenceNum: 11, agentDisconnect: {} }),
];

const asksFullState = (hex: string) => Number(decodeServerToAgent(Buffer.from(hex, 'hex')).flags ?? 0) === 1;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** The replies of a handler on a bus built with `options`, one message per turn of the loop. */
async function replies(options: EventBusOptions) {
  const bus = createEventBus(options);
  const registry = createRegistryProjection(bus.events$, (_, error) => {
    throw error;
  });
  const handler = createOpampHandler({
    bus,
    registry,
    now: () => 1_000,
    requiredAttributes: [],
    owners: createConnectionOwners(),
    decoder: createDecoder(),
    encoder: createEncoder(),
    observer: { messageReceived: () => undefined, messageFailed: () => undefined },
  });
  const connection = createConnection('ws', '127.0.0.1:1', null, nextId());
  const out: string[] = [];
  for (const payload of conversation) {
    const result = handledNow(handler.handle(connection, payload));
    expect(result.ok).to.equal(true);
    out.push(Buffer.from(result.reply!).toString('hex'));
    await nextTurn();
  }
  const state = registry.get(a);
  registry.stop();
  return { out, connected: state?.connected, sequenceNum: state?.sequenceNum };
}

describe('OpAMP handler', () => {
  it('answers the same whether the bus delivers at once or later (delivery order is not load-bearing)', async () => {
    const synchronous = await replies({});
    const later = await replies({ deliverOn: asapScheduler });
    expect(later).to.deep.equal(synchronous);
    // Sanity: the conversation exercised both answers (full state asked twice, plain replies too).
    expect(synchronous.out.map(asksFullState)).to.deep.equal([true, false, false, true, false, false]);
    expect(synchronous.connected).to.equal(false);
  });

  it('decides a reply before any projection has folded the message', () => {
    const bus = createEventBus({ deliverOn: asapScheduler });
    const registry = createRegistryProjection(bus.events$, () => undefined);
    const handler = createOpampHandler({
      bus,
      registry,
      now: () => 1_000,
      requiredAttributes: [],
      owners: createConnectionOwners(),
      decoder: createDecoder(),
      encoder: createEncoder(),
      observer: { messageReceived: () => undefined, messageFailed: () => undefined },
    });
    const result = handledNow(
      handler.handle(createConnection('http', '127.0.0.1:1', null, nextId()), conversation[0]!),
    );
    expect(registry.size).to.equal(0);
    expect(asksFullState(Buffer.from(result.reply!).toString('hex'))).to.equal(true);
    registry.stop();
  });
});

describe('OpAMP handler: waiting commands', () => {
  const AcceptsRestartCommand = 0x400;
  function harness() {
    const bus = createEventBus();
    const registry = createRegistryProjection(bus.events$, (_, error) => {
      throw error;
    });
    const commands = createCommandQueue();
    const handler = createOpampHandler({
      bus,
      registry,
      owners: createConnectionOwners(),
      decoder: createDecoder(),
      encoder: createEncoder(),
      commands,
      now: () => 1_000,
      requiredAttributes: [],
      observer: { messageReceived: () => undefined, messageFailed: () => undefined },
    });
    const connection = createConnection('ws', '127.0.0.1:1', null, nextId());
    const sent: Uint8Array[] = [];
    connection.send = (head) => void sent.push(head);
    const say = (caps: number, sequenceNum: number) => {
      const result = handledNow(
        handler.handle(
          connection,
          encodeAgentToServer({ instanceUid: instanceUidBytes(a), capabilities: caps, sequenceNum }),
        ),
      );
      return decodeServerToAgent(result.reply!);
    };
    return { handler, commands, say, sent, stop: () => registry.stop() };
  }

  it('leaves a command the agent cannot take in its queue, in replies and pushes alike', () => {
    const { handler, commands, say, sent, stop } = harness();
    say(capabilities, 0);
    commands.queue(a, 'restart');
    expect(say(capabilities, 1).command, 'the agent lacks AcceptsRestartCommand').to.equal(undefined);
    expect(commands.peek(a)).to.equal('restart');
    expect(handler.push(a)).to.equal(false);
    expect([commands.peek(a), sent.length]).to.deep.equal(['restart', 0]);
    stop();
  });

  it('takes a command from its queue only with the reply or push that carries it', () => {
    const { handler, commands, say, sent, stop } = harness();
    say(capabilities | AcceptsRestartCommand, 0);
    commands.queue(a, 'restart');
    expect(say(capabilities | AcceptsRestartCommand, 1).command, 'Restart (0): present, empty').to.deep.equal(
      {},
    );
    expect(commands.size).to.equal(0);
    expect(say(capabilities | AcceptsRestartCommand, 2).command, 'once').to.equal(undefined);
    commands.queue(a, 'restart');
    expect(handler.push(a)).to.equal(true);
    expect([commands.size, sent.length]).to.deep.equal([0, 1]);
    stop();
  });
});
