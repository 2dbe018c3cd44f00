import { expect } from 'chai';
import { encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { createDecoder } from '../../../src/io/opamp/decoder.ts';
import { answerGatewayConnect, isGatewayConnect } from '../../../src/io/opamp/gateway.ts';

const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const answer = (data: Uint8Array) =>
  JSON.parse(
    new TextDecoder().decode(answerGatewayConnect('com.vendor.opamp-gateway', data).data),
  ) as unknown;

describe('gateway connect handshake', () => {
  it('recognises the project capability and the Bindplane one, only with an empty instance_uid and type connect', () => {
    const msg = (capability: string, type = 'connect', instanceUid = new Uint8Array()) =>
      createDecoder().decode(
        encodeAgentToServer({ instanceUid, customMessage: { capability, type, data: json({}) } }),
      );
    expect(isGatewayConnect(msg('com.vendor.opamp-gateway'))).to.equal(true);
    expect(isGatewayConnect(msg('com.bindplane.opamp-gateway'))).to.equal(true);
    expect(isGatewayConnect(msg('com.example.other'))).to.equal(false);
    expect(isGatewayConnect(msg('com.vendor.opamp-gateway', 'other'))).to.equal(false);
    expect(isGatewayConnect(msg('com.vendor.opamp-gateway', 'connect', new Uint8Array(16)))).to.equal(false);
  });

  it('accepts well-formed connect data with 200 and echoes the request_uid', () => {
    const data = json({
      request_uid: 'r-1',
      remote_address: '10.1.2.3:5555',
      headers: { 'User-Agent': ['otelcol'] },
    });
    expect(answer(data)).to.deep.equal({ request_uid: 'r-1', accept: true, http_status_code: 200 });
  });

  for (const [title, data] of [
    ['malformed JSON', new TextEncoder().encode('{"request_uid": "r-2",')],
    ['a JSON array', json(['r'])],
    ['a missing request_uid', json({ remote_address: 'x' })],
    ['headers that are not a map', json({ request_uid: 'r-3', headers: 'x' })],
  ] as const) {
    it(`rejects ${title} with accept false and 400`, () => {
      expect(answer(data)).to.deep.include({ accept: false, http_status_code: 400 });
    });
  }
});
