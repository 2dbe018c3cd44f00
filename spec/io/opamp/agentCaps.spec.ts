// How many agents one connection and the whole registry may hold (issue 22; docs/security.md
// "Agents per connection and in the fleet"): one agent per connection unless it is an accepted
// gateway, agents.max_per_gateway per gateway, fleet.max_agents in all; each refusal counted, the
// agents already held served as before.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { agentMessage, description, newUid, postHttp, WsAgent } from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';
import { refusedDuring } from '../../support/opampRefusals.ts';

const BadRequest = 1;
const Unavailable = 2;

const described = (uid: string) =>
  agentMessage(uid, { agentDescription: description({ 'service.name': 'x' }) });

/** The gateway handshake: an AgentToServer with no id and only the connect custom message. */
const gatewayConnect = () =>
  encodeAgentToServer({
    instanceUid: new Uint8Array(),
    customMessage: {
      capability: 'com.vendor.opamp-gateway',
      type: 'connect',
      data: new TextEncoder().encode(JSON.stringify({ request_uid: newUid() })),
    },
  });

describe('agents per connection', () => {
  let app: App;
  before(async () => {
    app = await startApp({ config: { agents: { max_per_gateway: 3 } } });
  });
  after(() => app.stop());

  it('refuses a second id on a connection that is not a gateway, and keeps serving the first', async () => {
    const ws = await WsAgent.open(app.urls.opamp);
    const first = newUid();
    expect((await ws.send(described(first))).errorResponse).to.equal(undefined);
    const others = Array.from({ length: 50 }, newUid);
    const refused = await refusedDuring(app, 'one_agent_per_connection', async () => {
      for (const uid of others) {
        const reply = await ws.send(described(uid));
        expect(reply.errorResponse?.type).to.equal(BadRequest);
        expect(reply.errorResponse?.errorMessage).to.match(/not an accepted gateway carries one agent/);
      }
    });
    expect(refused).to.equal(50);
    expect(others.filter((uid) => app.registry.get(uid as InstanceUid) !== undefined)).to.deep.equal([]);
    expect((await ws.send(agentMessage(first, { sequenceNum: 1 }))).errorResponse).to.equal(undefined);
    await ws.close();
  });

  it('lets an accepted gateway carry agents.max_per_gateway agents, and refuses the next', async () => {
    const ws = await WsAgent.open(app.urls.opamp);
    const accepted = await ws.send(gatewayConnect());
    expect(accepted.customMessage?.type).to.equal('connectResult');
    const held = [newUid(), newUid(), newUid()];
    for (const uid of held) expect((await ws.send(described(uid))).errorResponse).to.equal(undefined);
    const refused = await refusedDuring(app, 'max_per_gateway', async () => {
      const reply = await ws.send(described(newUid()));
      expect(reply.errorResponse?.type).to.equal(BadRequest);
      expect(reply.errorResponse?.errorMessage).to.match(/gateway connection carries the most agents/);
    });
    expect(refused).to.equal(1);
    expect(held.map((uid) => app.registry.get(uid as InstanceUid)?.session.viaGateway)).to.deep.equal([
      true,
      true,
      true,
    ]);
    await ws.close();
  });
});

describe('fleet.max_agents', () => {
  let app: App;
  before(async () => {
    app = await startApp({ config: { fleet: { max_agents: 2 } } });
  });
  after(() => app.stop());

  it('refuses a new agent past it: Unavailable with retry_info over WebSocket, 503 with Retry-After over HTTP', async () => {
    const a = await WsAgent.open(app.urls.opamp);
    const [one, two] = [newUid(), newUid()];
    await a.send(described(one));
    expect((await postHttp(app.urls.opamp, described(two))).status).to.equal(200);
    const refused = await refusedDuring(app, 'max_agents', async () => {
      const b = await WsAgent.open(app.urls.opamp);
      const ws = await b.send(described(newUid()));
      expect(ws.errorResponse?.type).to.equal(Unavailable);
      expect(ws.errorResponse?.retryInfo?.retryAfterNanoseconds).to.equal('30000000000');
      await b.close();
      const http = await postHttp(app.urls.opamp, described(newUid()));
      expect([http.status, http.headers.get('retry-after')]).to.deep.equal([503, '30']);
    });
    expect(refused).to.equal(2);
    expect(app.registry.size).to.equal(2);
    // The agents it holds are served as before.
    expect((await a.send(agentMessage(one, { sequenceNum: 1 }))).errorResponse).to.equal(undefined);
    expect((await postHttp(app.urls.opamp, agentMessage(two, { sequenceNum: 1 }))).status).to.equal(200);
    await a.close();
  });
});
