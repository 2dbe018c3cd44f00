import { expect } from 'chai';
import { encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { createDecoder } from '../../../src/io/opamp/decoder.ts';
import { toAgentMessage } from '../../../src/io/opamp/toAgentMessage.ts';
import { presentParts } from '../../../src/projections/agent/agentMessage.ts';
import { description } from '../../support/agentClient.ts';
import { uid } from '../../support/events.ts';

const a = uid(1);
const translate = (fields: Record<string, unknown>) =>
  toAgentMessage(createDecoder().decode(encodeAgentToServer({ capabilities: 1, ...fields })), a);

describe('AgentToServer to the domain message', () => {
  it('keeps sequence numbers and capabilities exact beyond 2^53', () => {
    const m = translate({ sequenceNum: '18446744073709551615', capabilities: '9007199254740993' });
    expect(m.sequenceNum).to.equal(18446744073709551615n);
    expect(m.capabilities).to.equal(9007199254740993n);
  });

  it('leaves omitted sub-messages undefined and notes agent_disconnect', () => {
    const m = translate({ agentDisconnect: {}, health: { healthy: false } });
    expect(m.disconnect).to.equal(true);
    expect(m.description).to.equal(undefined);
    expect(presentParts(m)).to.deep.equal({
      description: false,
      health: true,
      effectiveConfig: false,
      remoteConfigStatus: false,
      packageStatuses: false,
    });
  });

  it('turns every reported sub-message into plain data', () => {
    const m = translate({
      agentDescription: description({ 'service.name': 'c' }),
      effectiveConfig: { configMap: { configMap: { '': { body: Buffer.from('a: 1') } } } },
      packageStatuses: { packages: {} },
    });
    expect(m.description?.identifying['service.name']).to.equal('c');
    expect(m.effectiveConfig).to.deep.equal({ '': { body: 'a: 1', contentType: '' } });
    expect(m.packageStatuses?.packages).to.deep.equal({});
  });

  it('reads remote_config_status with its hash as hex and its state by name', () => {
    const m = translate({
      remoteConfigStatus: { lastRemoteConfigHash: Buffer.from([0xab, 0x01]), status: 3, errorMessage: 'bad' },
    });
    expect(m.remoteConfigStatus).to.deep.equal({ hash: 'ab01', status: 'failed', errorMessage: 'bad' });
  });
});
