import { expect } from 'chai';
import { asapScheduler } from 'rxjs';
import { createEventBus, type EventBusOptions } from '../../../src/events/bus.ts';
import { decodeServerToAgent, encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { createConnection } from '../../../src/io/opamp/connection.ts';
import { createOpampHandler } from '../../../src/io/opamp/handler.ts';
import { instanceUidBytes } from '../../../src/io/opamp/instanceUid.ts';
import { createRegistryProjection } from '../../../src/projections/registry/registryProjection.ts';
import { description } from '../../support/agentClient.ts';
import { uid } from '../../support/events.ts';

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
    observer: { messageReceived: () => undefined, messageFailed: () => undefined },
  });
  const connection = createConnection('ws', '127.0.0.1:1', null);
  const out: string[] = [];
  for (const payload of conversation) {
    const result = handler.handle(connection, payload);
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
      observer: { messageReceived: () => undefined, messageFailed: () => undefined },
    });
    const result = handler.handle(createConnection('http', '127.0.0.1:1', null), conversation[0]!);
    expect(registry.size).to.equal(0);
    expect(asksFullState(Buffer.from(result.reply!).toString('hex'))).to.equal(true);
    registry.stop();
  });
});
