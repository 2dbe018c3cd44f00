import { expect } from 'chai';
import { frame, unframe } from '../../../src/io/opamp/framing.ts';
import { instanceUidBytes, toInstanceUid } from '../../../src/io/opamp/instanceUid.ts';

describe('WebSocket framing', () => {
  it('prefixes every outgoing message with the zero varint header', () => {
    expect([...frame(Uint8Array.of(0x0a, 0x01, 0x02))]).to.deep.equal([0x00, 0x0a, 0x01, 0x02]);
    expect([...frame(new Uint8Array())]).to.deep.equal([0x00]);
  });

  it('strips the header from a framed message', () => {
    expect(unframe(Uint8Array.of(0x00, 0x0a, 0x00))).to.deep.equal({
      ok: true,
      payload: Uint8Array.of(0x0a, 0x00),
    });
  });

  it('accepts the smallest frame, a bare header, as an empty message', () => {
    expect(unframe(Uint8Array.of(0x00))).to.deep.equal({ ok: true, payload: new Uint8Array() });
  });

  it('accepts a legacy frame without a header as the whole message', () => {
    expect(unframe(Uint8Array.of(0x0a, 0x00))).to.deep.equal({
      ok: true,
      payload: Uint8Array.of(0x0a, 0x00),
    });
  });

  it('rejects an empty frame', () => {
    expect(unframe(new Uint8Array()).ok).to.equal(false);
  });
});

describe('instance_uid at the edge', () => {
  it('shows 16 bytes as the canonical lowercase UUID', () => {
    const bytes = Uint8Array.from(Buffer.from('0192F0A1B2C37D4E8F00112233445566', 'hex'));
    expect(toInstanceUid(bytes)).to.equal('0192f0a1-b2c3-7d4e-8f00-112233445566');
  });

  it('keeps a 26-character ULID as the string the agent sent', () => {
    expect(toInstanceUid(new TextEncoder().encode('01ARZ3NDEKTSV4RRFFQ69G5FAV'))).to.equal(
      '01ARZ3NDEKTSV4RRFFQ69G5FAV',
    );
  });

  for (const [title, bytes] of [
    ['empty', new Uint8Array()],
    ['15 bytes', new Uint8Array(15)],
    ['17 bytes', new Uint8Array(17)],
    ['26 bytes that are not base32', new TextEncoder().encode('01ARZ3NDEKTSV4RRFFQ69G5FA!')],
  ] as const) {
    it(`rejects ${title}`, () => expect(toInstanceUid(bytes)).to.equal(undefined));
  }

  it('round-trips through the bytes an agent sends', () => {
    const uid = '0192f0a1-b2c3-7d4e-8f00-112233445566';
    expect(toInstanceUid(instanceUidBytes(uid))).to.equal(uid);
  });
});
