import { expect } from 'chai';
import { encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { createDecoder } from '../../../src/io/opamp/decoder.ts';

const uid = new Uint8Array(16).fill(3);
const config = (body: string) => ({
  effectiveConfig: {
    configMap: { configMap: { '': { body: Buffer.from(body), contentType: 'text/yaml' } } },
  },
});

describe('the AgentToServer decoder', () => {
  it('gives one shape whichever path decodes: a status report (hand-written) and package statuses (protobufjs)', () => {
    const decoder = createDecoder();
    const fast = decoder.decode(encodeAgentToServer({ instanceUid: uid, sequenceNum: 4, ...config('a: 1') }));
    const slow = decoder.decode(
      encodeAgentToServer({
        instanceUid: uid,
        sequenceNum: 4,
        ...config('a: 1'),
        packageStatuses: { errorMessage: 'e' },
      }),
    );
    const { packageStatuses, ...rest } = slow;
    expect(packageStatuses?.errorMessage).to.equal('e');
    expect(fast).to.deep.equal({ ...rest, packageStatuses: undefined });
    expect(fast.effectiveConfig?.['']?.body, 'the body shared by both paths').to.equal(
      slow.effectiveConfig?.['']?.body,
    );
  });

  it('keeps its caches to itself: two decoders share no effective-config body', () => {
    const one = createDecoder();
    const two = createDecoder();
    const bytes = encodeAgentToServer({ instanceUid: uid, ...config('b: 2') });
    one.decode(bytes);
    one.decode(bytes);
    expect(one.configBodies.decodes(), 'decoded once, then recognised').to.equal(1);
    two.decode(bytes);
    expect([one.configBodies.decodes(), two.configBodies.decodes()]).to.deep.equal([1, 1]);
    expect(two.configBodies.held()).to.equal('b: 2'.length);
  });

  it("reads a certificate request's CSR, and nothing when the request holds none", () => {
    const decoder = createDecoder();
    const ask = (opamp: object) =>
      decoder.decode(encodeAgentToServer({ instanceUid: uid, connectionSettingsRequest: { opamp } }));
    const pem = '-----BEGIN CERTIFICATE REQUEST-----\n';
    expect(
      Buffer.from(ask({ certificateRequest: { csr: Buffer.from(pem) } }).certificateRequest!).toString(),
    ).to.equal(pem);
    expect(ask({ certificateRequest: {} }).certificateRequest?.length, 'an empty CSR, still asked').to.equal(
      0,
    );
    expect(ask({}).certificateRequest).to.equal(undefined);
    expect(decoder.decode(encodeAgentToServer({ instanceUid: uid })).certificateRequest).to.equal(undefined);
  });

  it('throws on bytes that are not an AgentToServer', () => {
    expect(() => createDecoder().decode(Uint8Array.from([0x0a, 0x05, 1]))).to.throw();
  });
});
