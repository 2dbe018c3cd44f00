// The fast AgentToServer decoder against protobufjs: for any message the service reads, both give the
// same domain message; on anything else (mutated bytes included) the fast path gives up rather than
// differ, so protobufjs decides.

import { expect } from 'chai';
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { readAgentToServer as read } from '../../../src/io/opamp/agentToServerReader.ts';
import { encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import type { DecodedAgentToServer } from '../../../src/io/opamp/decodedAgentToServer.ts';
import { createReadTables } from '../../../src/io/opamp/protoReader.ts';
import { createSharedText } from '../../../src/io/opamp/sharedText.ts';
import { toAgentMessage } from '../../../src/io/opamp/toAgentMessage.ts';
import { fromWire } from '../../../src/io/opamp/wireToData.ts';
import type { WireAgentToServer } from '../../../src/io/opamp/wireTypes.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 300);
const protoFile = fileURLToPath(new URL('../../../proto/opamp/v1/opamp.proto', import.meta.url));
const AgentToServer = protobuf.loadSync(protoFile).lookupType('opamp.proto.v1.AgentToServer');
const uid = '0190c5a4-7d2e-7000-8000-000000000001' as InstanceUid;

function protobufjsDecode(bytes: Uint8Array): WireAgentToServer | Error {
  try {
    return AgentToServer.decode(bytes) as unknown as WireAgentToServer;
  } catch (error) {
    return error as Error;
  }
}

/** One decoder's tables and shared bodies, as decoder.ts holds them. */
const tables = createReadTables();
const bodies = createSharedText({ maxChars: 1 << 20, maxTextChars: 1 << 16 });
const readAgentToServer = (bytes: Uint8Array) => read(bytes, tables, bodies);

/** What the service reads from a decoded message: the fast reader's, or protobufjs's translated. */
const seen = (m: DecodedAgentToServer | WireAgentToServer) => {
  const decoded = 'disconnect' in m ? m : fromWire(m, bodies);
  return {
    message: toAgentMessage(decoded, uid),
    instanceUid: Buffer.from(decoded.instanceUid).toString('hex'),
    flags: decoded.flags,
    customMessage: decoded.customMessage,
    certificateRequest: decoded.certificateRequest && Buffer.from(decoded.certificateRequest).toString('hex'),
  };
};

const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String);
const text = fc.string({ unit: 'binary', maxLength: 12 });
const { keyValue } = fc.letrec<{ anyValue: object; keyValue: object }>((tie) => ({
  anyValue: fc.oneof(
    { depthSize: 'small' },
    fc.constant({}),
    fc.record({ stringValue: text }),
    fc.record({ boolValue: fc.boolean() }),
    fc.record({ intValue: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String) }),
    fc.record({ doubleValue: fc.double() }),
    fc.record({ bytesValue: fc.uint8Array({ maxLength: 8 }) }),
    fc.record({ arrayValue: fc.record({ values: fc.array(tie('anyValue'), { maxLength: 3 }) }) }),
    fc.record({ kvlistValue: fc.record({ values: fc.array(tie('keyValue'), { maxLength: 3 }) }) }),
  ),
  keyValue: fc.record({ key: text, value: tie('anyValue') }, { requiredKeys: ['key'] }),
}));
const { health } = fc.letrec<{ health: object }>((tie) => ({
  health: fc.record(
    {
      healthy: fc.boolean(),
      startTimeUnixNano: u64,
      lastError: text,
      status: text,
      statusTimeUnixNano: u64,
      componentHealthMap: fc.oneof(
        { depthSize: 'small' },
        fc.constant({}),
        fc.dictionary(text, tie('health'), { maxKeys: 3 }),
      ),
    },
    { requiredKeys: [] },
  ),
}));
const message = fc.record(
  {
    instanceUid: fc.uint8Array({ minLength: 16, maxLength: 16 }),
    sequenceNum: u64,
    capabilities: u64,
    flags: u64,
    agentDescription: fc.record({
      identifyingAttributes: fc.array(keyValue, { maxLength: 4 }),
      nonIdentifyingAttributes: fc.array(keyValue, { maxLength: 4 }),
    }),
    health,
    effectiveConfig: fc.option(
      fc.record({
        configMap: fc.dictionary(
          text,
          fc.record({ body: fc.uint8Array({ maxLength: 64 }), contentType: text }, { requiredKeys: [] }),
          { maxKeys: 3 },
        ),
      }),
    ),
    remoteConfigStatus: fc.record(
      { lastRemoteConfigHash: fc.uint8Array({ maxLength: 8 }), status: fc.nat(3), errorMessage: text },
      { requiredKeys: [] },
    ),
    connectionSettingsStatus: fc.record(
      { lastConnectionSettingsHash: fc.uint8Array({ maxLength: 8 }), status: fc.nat(4), errorMessage: text },
      { requiredKeys: [] },
    ),
    agentDisconnect: fc.constant({}),
    // Each level may be empty or absent: a CSR, an empty one, or no certificate asked for.
    connectionSettingsRequest: fc.record(
      {
        opamp: fc.record(
          {
            certificateRequest: fc.record({ csr: fc.uint8Array({ maxLength: 16 }) }, { requiredKeys: [] }),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);
const encoded = message.map((m) => {
  const { effectiveConfig, ...rest } = m as { effectiveConfig?: { configMap: object } | null };
  const config =
    effectiveConfig === undefined
      ? {}
      : { effectiveConfig: effectiveConfig ? { configMap: effectiveConfig } : {} };
  return encodeAgentToServer({ ...rest, ...config });
});

describe('the fast AgentToServer decoder', () => {
  it('reads every message the service reads exactly as protobufjs does', () => {
    fc.assert(
      fc.property(encoded, (bytes) => {
        const fast = readAgentToServer(bytes);
        const slow = protobufjsDecode(bytes);
        if (slow instanceof Error) throw slow;
        if (fast === undefined) return; // gave up (e.g. a "__proto__" map key): protobufjs decides
        expect(seen(fast)).to.deep.equal(seen(slow));
      }),
      { numRuns: runs },
    );
  });

  it('decodes status reports itself instead of handing them to protobufjs', () => {
    const report = encodeAgentToServer({
      instanceUid: new Uint8Array(16).fill(7),
      sequenceNum: 3,
      capabilities: 0x2805,
      health: { healthy: true, componentHealthMap: { 'pipeline:traces': { healthy: true } } },
      agentDescription: { identifyingAttributes: [{ key: 'service.name', value: { stringValue: 'c' } }] },
      effectiveConfig: { configMap: { configMap: { '': { body: Buffer.from('a: 1') } } } },
    });
    expect(readAgentToServer(report)).not.to.equal(undefined);
  });

  it('gives up on bytes it does not read exactly as protobufjs does, never differs', () => {
    const mutated = fc
      .tuple(encoded, fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 4 }), fc.nat())
      .map(([bytes, flips, cut]) => {
        const out = Uint8Array.from(bytes);
        for (const [i, b] of flips) if (out.length > 0) out[i % out.length] = b;
        return out.subarray(0, out.length - (cut % 3));
      });
    fc.assert(
      fc.property(mutated, (bytes) => {
        const fast = readAgentToServer(bytes);
        if (fast === undefined) return;
        const slow = protobufjsDecode(bytes);
        expect(slow).not.to.be.instanceOf(Error);
        expect(seen(fast)).to.deep.equal(seen(slow as WireAgentToServer));
      }),
      { numRuns: runs * 3 },
    );
  });

  it('reads a CSR itself, and leaves a repeated connection_settings_request to protobufjs', () => {
    const csr = { connectionSettingsRequest: { opamp: { certificateRequest: { csr: Buffer.from('pem') } } } };
    const once = encodeAgentToServer({ instanceUid: new Uint8Array(16).fill(7), ...csr });
    expect(Buffer.from(readAgentToServer(once)?.certificateRequest ?? []).toString()).to.equal('pem');
    const twice = Buffer.concat([once, encodeAgentToServer(csr)]);
    expect(readAgentToServer(twice)).to.equal(undefined);
  });

  it('reads connection_settings_status itself, and leaves a repeated one to protobufjs', () => {
    const status = {
      connectionSettingsStatus: {
        lastConnectionSettingsHash: Buffer.from('abcd', 'hex'),
        status: 3,
        errorMessage: 'e',
      },
    };
    const once = encodeAgentToServer({ instanceUid: new Uint8Array(16).fill(7), ...status });
    const fast = readAgentToServer(once);
    expect(fast?.connectionSettingsStatus).to.deep.equal({
      hash: 'abcd',
      status: 'failed',
      errorMessage: 'e',
    });
    expect(seen(fast!)).to.deep.equal(seen(protobufjsDecode(once) as WireAgentToServer));
    const twice = Buffer.concat([once, encodeAgentToServer(status)]);
    expect(readAgentToServer(twice)).to.equal(undefined);
  });

  it('leaves custom messages (the gateway handshake) and package statuses to protobufjs', () => {
    const connect = encodeAgentToServer({ customMessage: { capability: 'x', type: 'connect' } });
    const packages = encodeAgentToServer({ packageStatuses: { errorMessage: 'e' } });
    expect(readAgentToServer(connect)).to.equal(undefined);
    expect(readAgentToServer(packages)).to.equal(undefined);
  });
});

describe('the fast decoder on the edges of its fields', () => {
  /** A health sub-message (field 5) holding `body`, after a 16-byte instance_uid. */
  const withHealth = (body: number[]) =>
    Uint8Array.from([0x0a, 16, ...new Array<number>(16).fill(1), 0x2a, body.length, ...body]);

  it('reads a bool varint of any length as protobufjs does', () => {
    for (const varint of [
      [0x00],
      [0x01],
      [0x80, 0x00],
      [0x80, 0x80, 0x80, 0x80, 0x10],
      [...new Array<number>(9).fill(0x80), 0x02],
    ]) {
      const bytes = withHealth([0x08, ...varint]);
      const fast = readAgentToServer(bytes);
      expect(fast, `varint ${varint.join(',')}`).not.to.equal(undefined);
      expect(seen(fast!)).to.deep.equal(seen(protobufjsDecode(bytes) as WireAgentToServer));
    }
  });

  it('gives each distinct timestamp its value when they alternate and repeat', () => {
    const le = (n: bigint) => Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));
    const times = [1n, 2n ** 63n + 5n, 1n, 1n, 2n ** 64n - 1n];
    for (const t of times) {
      const bytes = withHealth([0x11, ...le(t), 0x29, ...le(t + 1n < 2n ** 64n ? t + 1n : 0n)]);
      const fast = readAgentToServer(bytes)!;
      expect(seen(fast).message.health?.startTimeNanos).to.equal(t);
      expect(seen(fast)).to.deep.equal(seen(protobufjsDecode(bytes) as WireAgentToServer));
    }
  });

  it('reads plain string attributes straight into the description, anything else as AnyValues', () => {
    const plain = encodeAgentToServer({
      instanceUid: new Uint8Array(16).fill(2),
      agentDescription: {
        identifyingAttributes: [{ key: 'service.name', value: { stringValue: 'otelcol' } }],
        nonIdentifyingAttributes: [{ key: 'host.name', value: { stringValue: '' } }],
      },
    });
    const mixed = encodeAgentToServer({
      instanceUid: new Uint8Array(16).fill(2),
      agentDescription: {
        identifyingAttributes: [{ key: 'service.name', value: { stringValue: 'otelcol' } }],
        nonIdentifyingAttributes: [{ key: 'cores', value: { intValue: 8 } }, { key: 'bare' }],
      },
    });
    const fastPlain = readAgentToServer(plain)!;
    expect(fastPlain.description).to.deep.equal({
      identifying: { 'service.name': 'otelcol' },
      nonIdentifying: { 'host.name': '' },
    });
    const fastMixed = readAgentToServer(mixed)!;
    expect(seen(fastMixed).message.description).to.deep.equal({
      identifying: { 'service.name': 'otelcol' },
      nonIdentifying: { cores: '8', bare: '' },
    });
    for (const bytes of [plain, mixed])
      expect(seen(readAgentToServer(bytes)!)).to.deep.equal(
        seen(protobufjsDecode(bytes) as WireAgentToServer),
      );
  });

  it('reads strings that share an interning slot (same length, ends and middle) each as itself', () => {
    // The slot is chosen from the length and five bytes; these differ only elsewhere.
    const bytes = encodeAgentToServer({
      instanceUid: new Uint8Array(16).fill(4),
      agentDescription: {
        identifyingAttributes: [
          { key: 'ab1c1de', value: { stringValue: 'ab2c2de' } },
          { key: 'ab3c3de', value: { stringValue: 'ab1c1de' } },
        ],
      },
    });
    for (let i = 0; i < 2; i++)
      expect(seen(readAgentToServer(bytes)!).message.description?.identifying).to.deep.equal({
        ab1c1de: 'ab2c2de',
        ab3c3de: 'ab1c1de',
      });
  });
});
