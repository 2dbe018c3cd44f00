// The binding rule against the running service (issue 29; docs/security.md "The binding rule"), one
// finding each, over both transports: an agent certificate speaks for the id it names and nothing
// else; the enrolling token's selector and gateway permission travel with the certificate; a holder's
// old socket loses the id when it moves to its certificate, so neither it nor a third token writes the
// id's description; a revocation closes every connection admitted for the id; only a credential
// allowed to be a gateway declares one. The same for OpAMP client certificates that name an agent id
// and for agents.gateway_certificates. Persistence off; the two-replica cases are in
// certificateReplicas.spec.ts, opamp-go's client in spec/interop/agentCsr.spec.ts.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { agentMessage, newUid, WsAgent } from '../../support/agentClient.ts';
import { refusedDuring } from '../../support/opampRefusals.ts';
import { startApp } from '../../support/startApp.ts';
import { createPki, type TestPki } from '../tls/testPki.ts';
import {
  bearerOf,
  bindingConfig,
  closeOf,
  describedAs,
  enroll,
  gatewayConnect,
  postHttps,
  tokens,
} from './bindingFlow.ts';
import { revokeWhileConnected } from './certificateFlow.ts';

const BadRequest = 1;

describe('the binding rule on the wire (agent certificates)', function () {
  this.timeout(30_000);
  let serverPki: TestPki;
  let agentPki: TestPki;
  let app: App;
  let ca: string;

  before(async () => {
    serverPki = createPki('Server CA');
    agentPki = createPki('Agent CA');
    ca = serverPki.ca.cert;
    app = await startApp({ config: bindingConfig(serverPki, agentPki) });
  });
  after(async () => {
    await app?.stop();
    serverPki?.cleanup();
    agentPki?.cleanup();
  });

  const descriptionOf = (uid: string) => app.registry.get(uid as InstanceUid)?.description;

  it("refuses an agent certificate for another agent's id and for fresh ids, over WebSocket and HTTPS", async () => {
    const victim = newUid();
    const own = await WsAgent.open(app.urls.opamp, { ca, headers: bearerOf(tokens.victim) });
    expect((await own.send(describedAs(victim, 'prod'))).errorResponse).to.equal(undefined);
    await own.close();
    const mine = newUid();
    const attacker = await enroll(app.urls.opamp, ca, agentPki, tokens.dev, mine);
    await attacker.enrolling.close();

    const refused = await refusedDuring(app, 'uid_not_in_certificate', async () => {
      for (const uid of [victim, newUid()]) {
        const ws = await WsAgent.open(app.urls.opamp, attacker.tls);
        const reply = await ws.send(describedAs(uid, 'dev'));
        expect(reply.errorResponse?.type).to.equal(BadRequest);
        expect(reply.errorResponse?.errorMessage).to.match(/speaks only for the instance_uid it names/);
        expect(reply.remoteConfig, 'nothing of the id is sent').to.equal(undefined);
        await ws.close();
        const http = await postHttps(app.urls.opamp, describedAs(uid, 'dev'), attacker.tls);
        expect(http.status, 'over HTTPS').to.equal(403);
      }
    });
    expect(refused).to.equal(4);
    expect(app.registry.size, 'no fresh id registered').to.be.lessThan(3);
    expect(descriptionOf(victim)?.identifying['env']).to.equal('prod');

    const back = await WsAgent.open(app.urls.opamp, { ca, headers: bearerOf(tokens.victim) });
    expect(
      (await back.send(describedAs(victim, 'prod', 1))).errorResponse,
      'the victim keeps its id',
    ).to.equal(undefined);
    await back.close();
    const ownId = await WsAgent.open(app.urls.opamp, attacker.tls);
    expect((await ownId.send(describedAs(mine, 'dev', 1))).errorResponse, 'its own id').to.equal(undefined);
    await ownId.close();
  });

  it("applies the enrolling token's selector to the certificate's connections, over WebSocket and HTTPS", async () => {
    const uid = newUid();
    const agent = await enroll(app.urls.opamp, ca, agentPki, tokens.dev, uid);
    await agent.enrolling.close();
    const refused = await refusedDuring(app, 'selector', async () => {
      const ws = await WsAgent.open(app.urls.opamp, agent.tls);
      const reply = await ws.send(describedAs(uid, 'prod', 1));
      expect(reply.errorResponse?.errorMessage).to.match(/selector env=dev/);
      await ws.close();
      const http = await postHttps(app.urls.opamp, describedAs(uid, 'prod', 2), agent.tls);
      expect(http.message?.errorResponse?.errorMessage).to.match(/selector env=dev/);
    });
    expect(refused).to.equal(2);
    expect(descriptionOf(uid)?.identifying['env']).to.equal('dev');
  });

  it("takes the id from the holder's old socket when it moves to its certificate; nor may a third token write it", async () => {
    const uid = newUid();
    const agent = await enroll(app.urls.opamp, ca, agentPki, tokens.victim, uid, 'prod');
    const moved = await WsAgent.open(app.urls.opamp, agent.tls);
    expect((await moved.send(describedAs(uid, 'prod', 1))).errorResponse).to.equal(undefined);

    const refused = await refusedDuring(app, 'uid_bound_elsewhere', async () => {
      const old = await agent.enrolling.send(describedAs(uid, 'stolen-by-old-socket', 2));
      expect(old.errorResponse?.errorMessage).to.match(/belongs to another credential/);
      const third = await WsAgent.open(app.urls.opamp, { ca, headers: bearerOf(tokens.third) });
      expect((await third.send(describedAs(uid, 'stolen-by-third', 0))).errorResponse?.type).to.equal(
        BadRequest,
      );
      await third.close();
      const http = await postHttps(
        app.urls.opamp,
        describedAs(uid, 'stolen-by-third', 0),
        { ca },
        bearerOf(tokens.third),
      );
      expect(http.message?.errorResponse?.type).to.equal(BadRequest);
    });
    expect(refused).to.equal(3);
    expect(descriptionOf(uid)?.identifying['env']).to.equal('prod');
    await agent.enrolling.close();
    await moved.close();
  });

  it('closes every connection admitted for a revoked id, not only the one holding it', async () => {
    const uid = newUid();
    const first = await WsAgent.open(app.urls.opamp, { ca, headers: bearerOf(tokens.victim) });
    expect((await first.send(describedAs(uid, 'prod'))).errorResponse).to.equal(undefined);
    // The same credential on a second socket takes the agent over; the first stays admitted for it.
    const second = await WsAgent.open(app.urls.opamp, { ca, headers: bearerOf(tokens.victim) });
    expect((await second.send(describedAs(uid, 'prod', 1))).errorResponse).to.equal(undefined);
    const firstClosed = closeOf(first);
    expect(await revokeWhileConnected(app.urls.ui, uid, second)).to.deep.equal({
      status: 200,
      closeCode: 1008,
    });
    expect(await firstClosed, 'the socket no longer holding it').to.equal(1008);
  });

  it('lets only a credential allowed to be a gateway declare one, and a certificate issued to it too', async () => {
    const refused = await refusedDuring(app, 'gateway_not_allowed', async () => {
      const ws = await WsAgent.open(app.urls.opamp, { ca, headers: bearerOf(tokens.victim) });
      const reply = await ws.send(gatewayConnect());
      expect(reply.errorResponse?.type).to.equal(BadRequest);
      expect(reply.customMessage, 'no connect result').to.equal(undefined);
      // Still not a gateway: a second agent on it is refused.
      await ws.send(agentMessage(newUid()));
      expect((await ws.send(agentMessage(newUid()))).errorResponse?.errorMessage).to.match(
        /carries one agent/,
      );
      await ws.close();
      const http = await postHttps(app.urls.opamp, gatewayConnect(), { ca }, bearerOf(tokens.victim));
      expect(http.status).to.equal(403);
    });
    expect(refused).to.equal(2);

    const allowed = await WsAgent.open(app.urls.opamp, { ca, headers: bearerOf(tokens.gateway) });
    const accepted = await allowed.send(gatewayConnect());
    expect(new TextDecoder().decode(accepted.customMessage?.data)).to.match(/"accept":true/);
    await allowed.close();

    const uid = newUid();
    const enrolled = await enroll(app.urls.opamp, ca, agentPki, tokens.gateway, uid);
    await enrolled.enrolling.close();
    const withCertificate = await WsAgent.open(app.urls.opamp, enrolled.tls);
    const answer = await withCertificate.send(gatewayConnect());
    expect(new TextDecoder().decode(answer.customMessage?.data), 'the permission travels').to.match(
      /"accept":true/,
    );
    await withCertificate.close();
  });
});

describe('the binding rule on the wire (OpAMP client certificates)', function () {
  this.timeout(30_000);
  let serverPki: TestPki;
  let clientPki: TestPki;
  let app: App;
  let ca: string;
  const named = newUid();

  before(async () => {
    serverPki = createPki('Server CA');
    clientPki = createPki('Client CA');
    ca = serverPki.ca.cert;
    const server = serverPki.server();
    app = await startApp({
      config: {
        opamp_tls: {
          cert_file: server.certFile,
          key_file: server.keyFile,
          client_ca_file: clientPki.ca.certFile,
        },
        agents: { gateway_certificates: ['spiffe://corp/relay/east'] },
      },
    });
  });
  after(async () => {
    await app?.stop();
    serverPki?.cleanup();
    clientPki?.cleanup();
  });

  it('lets a client certificate naming an agent id speak for that id only, over WebSocket and HTTPS', async () => {
    const issued = clientPki.issue('named', { sans: [`URI:spiffe://corp/agent/${named}`], cn: 'named' });
    const tls = { ca, cert: issued.cert, key: issued.key };
    const ws = await WsAgent.open(app.urls.opamp, tls);
    expect((await ws.send(describedAs(named, 'prod'))).errorResponse).to.equal(undefined);
    await ws.close();
    const refused = await refusedDuring(app, 'uid_not_in_certificate', async () => {
      const other = await WsAgent.open(app.urls.opamp, tls);
      expect((await other.send(describedAs(newUid(), 'prod'))).errorResponse?.type).to.equal(BadRequest);
      await other.close();
      expect((await postHttps(app.urls.opamp, describedAs(newUid(), 'prod'), tls)).status).to.equal(403);
    });
    expect(refused).to.equal(2);
  });

  it('lets only a client certificate listed in agents.gateway_certificates declare a gateway', async () => {
    const relay = clientPki.issue('relay', { sans: ['URI:spiffe://corp/relay/east'], cn: 'relay' });
    const other = clientPki.issue('other', { sans: ['URI:spiffe://corp/relay/west'], cn: 'other' });
    const allowed = await WsAgent.open(app.urls.opamp, { ca, cert: relay.cert, key: relay.key });
    expect(new TextDecoder().decode((await allowed.send(gatewayConnect())).customMessage?.data)).to.match(
      /"accept":true/,
    );
    await allowed.close();
    const refused = await refusedDuring(app, 'gateway_not_allowed', async () => {
      const ws = await WsAgent.open(app.urls.opamp, { ca, cert: other.cert, key: other.key });
      expect((await ws.send(gatewayConnect())).errorResponse?.type).to.equal(BadRequest);
      await ws.close();
    });
    expect(refused).to.equal(1);
  });
});
