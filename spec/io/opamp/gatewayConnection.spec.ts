import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { agentMessage, description, newUid, WsAgent } from '../../support/agentClient.ts';
import { nextEvent } from '../../support/busWaiter.ts';
import { startApp } from '../../support/startApp.ts';

const connect = (capability: string, data: string) =>
  encodeAgentToServer({ customMessage: { capability, type: 'connect', data: Buffer.from(data) } });
const result = (reply: { customMessage?: { data?: Uint8Array } | undefined }) =>
  JSON.parse(Buffer.from(reply.customMessage?.data ?? []).toString()) as Record<string, unknown>;

describe('gateway connections', () => {
  let app: App;
  beforeEach(async () => {
    app = await startApp();
  });
  afterEach(async () => {
    await app.stop();
  });

  it('answers the connect handshake, relays three agents, routes replies by instance_uid, and disconnects all on close', async () => {
    const gateway = await WsAgent.open(app.urls.opamp);
    const hello = await gateway.send(
      connect(
        'com.vendor.opamp-gateway',
        JSON.stringify({
          request_uid: 'req-1',
          remote_address: '10.0.0.7:41000',
          headers: { 'User-Agent': ['otelcol'] },
        }),
      ),
    );
    expect(hello.customMessage).to.deep.include({
      capability: 'com.vendor.opamp-gateway',
      type: 'connectResult',
    });
    expect(result(hello)).to.deep.equal({ request_uid: 'req-1', accept: true, http_status_code: 200 });

    const uids = [newUid(), newUid(), newUid()];
    for (const uid of uids)
      gateway.socket.send(
        Buffer.concat([
          Buffer.from([0]),
          agentMessage(uid, { agentDescription: description({ 'service.name': uid }) }),
        ]),
      );
    const replies = [await gateway.next(), await gateway.next(), await gateway.next()];
    expect(replies.map((r) => Buffer.from(r.instanceUid).toString('hex'))).to.deep.equal(
      uids.map((u) => u.replaceAll('-', '')),
    );
    for (const uid of uids) {
      expect(app.registry.get(uid as InstanceUid)?.session).to.include({ viaGateway: true, transport: 'ws' });
    }

    const gone = Promise.all(
      uids.map((uid) => nextEvent(app.bus, 'AgentDisconnected', (e) => e.data.uid === uid)),
    );
    await gateway.close();
    await gone;
    for (const uid of uids) expect(app.registry.get(uid as InstanceUid)?.connected).to.equal(false);
  });

  it('accepts the Bindplane capability name the same way', async () => {
    const gateway = await WsAgent.open(app.urls.opamp);
    const reply = await gateway.send(
      connect('com.bindplane.opamp-gateway', '{"request_uid":"b-1","remote_address":"x","headers":{}}'),
    );
    expect(reply.customMessage?.capability).to.equal('com.bindplane.opamp-gateway');
    expect(result(reply)).to.include({ accept: true, http_status_code: 200 });
    await gateway.close();
  });

  it('rejects malformed connect data with accept false and 400, without a BadRequest error', async () => {
    const gateway = await WsAgent.open(app.urls.opamp);
    const reply = await gateway.send(connect('com.vendor.opamp-gateway', '{"request_uid": "r-9", oops'));
    expect(reply.errorResponse).to.equal(undefined);
    expect(result(reply)).to.deep.include({ accept: false, http_status_code: 400 });
    const uid = newUid();
    await gateway.send(agentMessage(uid));
    expect(app.registry.get(uid as InstanceUid)?.session.viaGateway).to.equal(false);
    await gateway.close();
  });
});
