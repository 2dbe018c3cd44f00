// A real third-party agent: Elastic's OpAMP client for Node.js, over plain HTTP.

import { expect } from 'chai';
import { createOpAMPClient } from '@elastic/opamp-client-node';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { toInstanceUid } from '../../../src/io/opamp/instanceUid.ts';
import { nextEvent } from '../../support/busWaiter.ts';
import { startApp } from '../../support/startApp.ts';
import { uuidv7Bytes } from '../../../src/io/opamp/uuidv7.ts';

describe('@elastic/opamp-client-node against the service', () => {
  let app: App;
  beforeEach(async () => {
    app = await startApp();
  });
  afterEach(async () => {
    await app.stop();
  });

  it('registers the agent with its identifying and non-identifying attributes, merged', async () => {
    const uidBytes = uuidv7Bytes(Date.now());
    const uid = toInstanceUid(uidBytes) as InstanceUid;
    const described = nextEvent(app.bus, 'AgentStatusReported', (e) => e.data.uid === uid);
    const client = createOpAMPClient({
      endpoint: `${app.urls.opamp}/v1/opamp`,
      instanceUid: uidBytes,
      heartbeatIntervalSeconds: 100,
    });
    client.setAgentDescription({
      identifyingAttributes: { 'service.name': 'checkout', 'service.version': '1.4.2' },
      nonIdentifyingAttributes: { 'os.type': 'linux', 'host.name': 'node-7' },
    });
    client.start();
    try {
      await described;
      const agent = app.registry.get(uid);
      expect(agent?.description).to.deep.equal({
        identifying: { 'service.name': 'checkout', 'service.version': '1.4.2' },
        nonIdentifying: { 'os.type': 'linux', 'host.name': 'node-7' },
      });
      expect(agent).to.include({ connected: true });
      expect(agent?.session.transport).to.equal('http');
      expect((agent?.capabilities ?? 0n) & 1n).to.equal(1n);
    } finally {
      await client.shutdown();
    }
    // The client says goodbye with agent_disconnect on shutdown (or leaves it to liveness).
    expect(app.registry.get(uid)?.description?.identifying['service.name']).to.equal('checkout');
  });
});
