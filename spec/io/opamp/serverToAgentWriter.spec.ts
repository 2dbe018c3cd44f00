// The fast ServerToAgent encoder against protobufjs: the same bytes for every reply it writes, and
// protobufjs for every reply it does not.

import { expect } from 'chai';
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { createEncoder } from '../../../src/io/opamp/codec.ts';
import { createServerToAgentWriter } from '../../../src/io/opamp/serverToAgentWriter.ts';
import type { ServerToAgentFields } from '../../../src/io/opamp/wireTypes.ts';

const writeServerToAgent = createServerToAgentWriter();
const encoder = createEncoder();
const encodeServerToAgent = (fields: ServerToAgentFields, headroom: number) =>
  encoder.encode(fields, headroom);

const protoFile = fileURLToPath(new URL('../../../proto/opamp/v1/opamp.proto', import.meta.url));
const ServerToAgent = protobuf.loadSync(protoFile).lookupType('opamp.proto.v1.ServerToAgent');
const protobufjsEncode = (fields: ServerToAgentFields) =>
  Buffer.from(ServerToAgent.encode(ServerToAgent.create(fields)).finish());

const replies = fc.record(
  {
    instanceUid: fc.uint8Array({ maxLength: 26 }),
    flags: fc.integer({ min: 0, max: 0xffffffff }),
    capabilities: fc.integer({ min: 0, max: 0xffffffff }),
    customCapabilities: fc.record({
      capabilities: fc.array(fc.string({ unit: 'binary' }), { maxLength: 3 }),
    }),
  },
  { requiredKeys: ['instanceUid'] },
);

describe('the fast ServerToAgent encoder', () => {
  it('writes the bytes protobufjs writes for every usual reply', () => {
    fc.assert(
      fc.property(replies, (fields) => {
        const fast = writeServerToAgent(fields);
        expect(fast, 'fast path taken').not.to.equal(undefined);
        expect(Buffer.from(fast!).toString('hex')).to.equal(protobufjsEncode(fields).toString('hex'));
      }),
      { numRuns: 300 },
    );
  });

  it('leaves every other field to protobufjs', () => {
    const uid = new Uint8Array(16);
    expect(writeServerToAgent({ instanceUid: uid, errorResponse: { type: 1, errorMessage: 'x' } })).to.equal(
      undefined,
    );
    expect(writeServerToAgent({ instanceUid: uid, agentIdentification: { newInstanceUid: uid } })).to.equal(
      undefined,
    );
    const later = { instanceUid: uid, remoteConfig: { configHash: uid } } as ServerToAgentFields;
    expect(writeServerToAgent(later)).to.equal(undefined);
  });

  it('encodes a frozen capability list once and a list that can change every time', () => {
    const uid = new Uint8Array(16).fill(3);
    const same = (list: readonly string[]) => {
      const fields = { instanceUid: uid, capabilities: 5, customCapabilities: { capabilities: list } };
      const expected = protobufjsEncode({ ...fields, customCapabilities: { capabilities: [...list] } });
      expect(Buffer.from(writeServerToAgent(fields)!).toString('hex')).to.equal(expected.toString('hex'));
    };
    const frozen = Object.freeze(['com.example.a', 'com.example.b']);
    same(frozen);
    same(frozen);
    const open = ['com.example.a'];
    same(open);
    open.push('com.example.c'); // changed after it was encoded: not taken from memory
    same(open);
  });

  it('leaves the framing room asked for in front of a reply, whichever encoder writes it', () => {
    const uid = new Uint8Array(16).fill(5);
    const usual = { instanceUid: uid, flags: 1 };
    const unusual = { instanceUid: uid, errorResponse: { type: 1, errorMessage: 'bad' } };
    for (const fields of [usual, unusual]) {
      const framed = Buffer.from(encodeServerToAgent(fields, 1));
      expect(framed[0]).to.equal(0);
      expect(framed.subarray(1).toString('hex')).to.equal(protobufjsEncode(fields).toString('hex'));
    }
  });
});
