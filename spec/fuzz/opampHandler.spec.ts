// Property-based fuzzing of the OpAMP decoder and translation through the one handler both transports
// use: hostile bytes never throw out of it, never break a projection, memory stays bounded, and the
// next good message is served. Runs are few in CI; `npm run fuzz` sets FUZZ_RUNS for long runs
// (FUZZ_SEED replays a failure that fast-check reports).

import { expect } from 'chai';
import fc from 'fast-check';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { createEventBus } from '../../src/events/bus.ts';
import type { InstanceUid } from '../../src/events/ids.ts';
import { createEncoder, encodeAgentToServer } from '../../src/io/opamp/codec.ts';
import { createConnection, createConnectionIds } from '../../src/io/opamp/connection.ts';
import { createConnectionOwners } from '../../src/io/opamp/connectionOwners.ts';
import { createDecoder } from '../../src/io/opamp/decoder.ts';
import { createOpampHandler, handledNow } from '../../src/io/opamp/handler.ts';
import { instanceUidBytes } from '../../src/io/opamp/instanceUid.ts';
import { createRegistryProjection } from '../../src/projections/registry/registryProjection.ts';
import { agentMessage, description } from '../support/agentClient.ts';
import { agentToServer, describedBy, nestedAnyValue, nestedHealth, withHealth } from './wire.ts';

const nextId = createConnectionIds();

const runs = Number(process.env.FUZZ_RUNS ?? 100);
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const params = { numRuns: runs, ...(seed === undefined ? {} : { seed }) };

const goodUid = '0190c5a4-7d2e-7000-8000-000000000001' as InstanceUid;
const uids = [goodUid, '0190c5a4-7d2e-7000-8000-000000000002', '0190c5a4-7d2e-7000-8000-000000000003'];

function harness() {
  const bus = createEventBus();
  const projectionErrors: unknown[] = [];
  const registry = createRegistryProjection(bus.events$, (_p, error) => projectionErrors.push(error));
  let t = 1_700_000_000_000;
  const failures: string[] = [];
  const handler = createOpampHandler({
    bus,
    registry,
    now: () => t++,
    requiredAttributes: ['service.name'],
    owners: createConnectionOwners(),
    decoder: createDecoder(),
    encoder: createEncoder(),
    observer: { messageReceived: () => undefined, messageFailed: (r) => void failures.push(r) },
  });
  const connection = createConnection('ws', '127.0.0.1:1', null, nextId());
  let seq = 0;
  /** The handler must answer a good message after whatever came before it. */
  const servesGoodMessage = () => {
    seq++;
    const good = agentMessage(goodUid, {
      sequenceNum: seq,
      agentDescription: description({ 'service.name': `ok-${seq}` }),
    });
    const r = handledNow(handler.handle(connection, good));
    expect(r.ok).to.equal(true);
    expect(registry.get(goodUid)?.description?.identifying['service.name']).to.equal(`ok-${seq}`);
  };
  const stop = () => {
    handler.closed(connection);
    registry.stop();
    bus.close();
  };
  return { handler, registry, connection, projectionErrors, failures, servesGoodMessage, stop };
}

const attrs = fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 24 }), { maxKeys: 6 });
const validMessage = fc
  .record({
    uid: fc.constantFrom(...uids),
    sequenceNum: fc.nat(),
    identifying: attrs,
    nonIdentifying: attrs,
    healthy: fc.option(fc.boolean()),
    config: fc.option(
      fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 64 }), { maxKeys: 3 }),
    ),
    disconnect: fc.boolean(),
  })
  .map((m) =>
    agentMessage(m.uid, {
      sequenceNum: m.sequenceNum,
      agentDescription: description(m.identifying, m.nonIdentifying),
      ...(m.healthy === null ? {} : { health: { healthy: m.healthy, status: 'x' } }),
      ...(m.config === null
        ? {}
        : {
            effectiveConfig: {
              configMap: {
                configMap: Object.fromEntries(
                  Object.entries(m.config).map(([k, v]) => [k, { body: Buffer.from(v) }]),
                ),
              },
            },
          }),
      ...(m.disconnect ? { agentDisconnect: {} } : {}),
    }),
  );

/** A valid message with bytes flipped, cut, or spliced in. */
const mutatedMessage = fc
  .tuple(
    validMessage,
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
    fc.nat(),
    fc.uint8Array({ maxLength: 16 }),
  )
  .map(([bytes, flips, cut, splice]) => {
    const out = Uint8Array.from(bytes);
    for (const [i, b] of flips) out[i % out.length] = b;
    const at = cut % (out.length + 1);
    return new Uint8Array([...out.subarray(0, at), ...splice, ...out.subarray(at)]);
  });

function collectGarbage(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('fuzz: OpAMP decoder and translation', function () {
  this.timeout(Math.max(30_000, runs * 200));

  it('never throws on random bytes, and serves the next good message', () => {
    const h = harness();
    try {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 2048 }), (bytes) => {
          const r = handledNow(h.handler.handle(h.connection, bytes));
          expect(r.ok === true || typeof r.error === 'string').to.equal(true);
          h.servesGoodMessage();
        }),
        params,
      );
      expect(h.projectionErrors).to.deep.equal([]);
    } finally {
      h.stop();
    }
  });

  it('accepts every well-formed message, whatever its content', () => {
    const h = harness();
    try {
      fc.assert(
        fc.property(validMessage, (bytes) => {
          expect(handledNow(h.handler.handle(h.connection, bytes)).ok).to.equal(true);
        }),
        params,
      );
      expect(h.projectionErrors).to.deep.equal([]);
    } finally {
      h.stop();
    }
  });

  it('never throws on mutated messages, and serves the next good message', () => {
    const h = harness();
    try {
      fc.assert(
        fc.property(mutatedMessage, (bytes) => {
          handledNow(h.handler.handle(h.connection, bytes));
          h.servesGoodMessage();
        }),
        params,
      );
      expect(h.projectionErrors).to.deep.equal([]);
    } finally {
      h.stop();
    }
  });

  it('answers deeply nested AnyValues and health maps without overflowing the stack', () => {
    const h = harness();
    const uid = instanceUidBytes(goodUid);
    try {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 20_000 }),
          fc.constantFrom('kvlist' as const, 'array' as const, 'mixed' as const),
          fc.boolean(),
          (depth, shape, health) => {
            const field = health
              ? withHealth(nestedHealth(depth))
              : describedBy('deep', nestedAnyValue(depth, shape));
            const r = handledNow(h.handler.handle(h.connection, agentToServer(uid, field)));
            expect(r.ok === true || /depth|could not be processed/.test(r.error)).to.equal(true);
            h.servesGoodMessage();
          },
        ),
        { ...params, numRuns: Math.max(10, Math.floor(runs / 5)) },
      );
      expect(h.projectionErrors).to.deep.equal([]);
    } finally {
      h.stop();
    }
  });

  it('handles huge repeated fields within the message limit and keeps memory bounded', () => {
    const gc = collectGarbage();
    const h = harness();
    try {
      gc();
      const before = process.memoryUsage().heapUsed;
      for (let round = 0; round < 2; round++) {
        // 150k attributes and 30k package statuses in one message (a few MiB on the wire).
        const attributes = Array.from({ length: 150_000 }, (_, i) => ({
          key: `k${i}`,
          value: { intValue: i },
        }));
        const packages = Object.fromEntries(
          Array.from({ length: 30_000 }, (_, i) => [`p${i}`, { name: `p${i}`, status: i % 7 }]),
        );
        const bytes = encodeAgentToServer({
          instanceUid: instanceUidBytes(uids[round % uids.length]!),
          agentDescription: { identifyingAttributes: attributes, nonIdentifyingAttributes: [] },
          packageStatuses: { packages },
        });
        expect(handledNow(h.handler.handle(h.connection, bytes)).ok).to.equal(true);
        h.servesGoodMessage();
      }
      // Replace the huge states, then nothing of the hostile messages may stay reachable.
      for (const uid of uids) {
        const small = agentMessage(uid, {
          agentDescription: description({ a: 'b' }),
          packageStatuses: { packages: {} },
        });
        expect(handledNow(h.handler.handle(h.connection, small)).ok).to.equal(true);
      }
      gc();
      const grown = process.memoryUsage().heapUsed - before;
      expect(grown).to.be.below(32 * 1024 * 1024);
      expect(h.projectionErrors).to.deep.equal([]);
    } finally {
      h.stop();
    }
  });
});
