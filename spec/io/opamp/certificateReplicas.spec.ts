// Agent certificates across two replicas on one real PostgreSQL: a certificate issued by one replica
// is recorded in the shared store and lets the agent into the other; revoked on the first, the
// second closes the agent's live connection and refuses its next one with 401. The binding rule
// (issue 29) holds across them: a certificate issued on one speaks on the other for its own id only,
// with its enrolling token's selector; a revocation on one closes every connection the other
// admitted for the id.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { agentMessage, newUid, refusedUpgrade, WsAgent } from '../../support/agentClient.ts';
import { opampRefusals } from '../../support/opampRefusals.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';
import { opensslCsr } from '../tls/testCsr.ts';
import { createPki, type TestPki } from '../tls/testPki.ts';
import { bearerOf, bindingConfig, closeOf, describedAs, enroll, postHttps, tokens } from './bindingFlow.ts';
import { askCertificate, bearer, certificateConfig, revokeWhileConnected } from './certificateFlow.ts';

describe('agent certificates across two replicas (PostgreSQL)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let serverPki: TestPki;
  let agentPki: TestPki;
  let a: App;
  let b: App;

  before(async () => {
    db = await createTestDatabase();
    serverPki = createPki('Server CA');
    agentPki = createPki('Agent CA');
    const config = certificateConfig(serverPki, agentPki, { extra: { database: db.config } });
    a = await startApp({ config });
    b = await startApp({ config });
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await db?.drop();
    serverPki?.cleanup();
    agentPki?.cleanup();
  });

  it('issued on one replica, admitted by the other; revoked on the first, closed and refused by the other', async () => {
    const uid = newUid();
    const csr = opensslCsr(agentPki.dir, 'replica-agent');
    const enrolling = await WsAgent.open(a.urls.opamp, { ca: serverPki.ca.cert, headers: bearer });
    const { offer } = await askCertificate(enrolling, uid, csr.csrPem);
    await enrolling.close();
    const [recorded] = await b.credentials.certificates(uid as InstanceUid);
    expect(recorded?.issuedBy, 'in the shared store').to.equal('token:fleet-a');

    const mine = {
      ca: serverPki.ca.cert,
      cert: Buffer.from(offer!.opamp.certificate.cert).toString(),
      key: csr.keyPem,
    };
    const onB = await WsAgent.open(b.urls.opamp, mine);
    await onB.send(agentMessage(uid));
    expect(b.registry.get(uid as InstanceUid)?.session.tlsSubject).to.equal(`CN=${uid}`);

    const revoked = await revokeWhileConnected(a.urls.ui, uid, onB);
    expect(revoked, 'revoked on A, closed by B').to.deep.equal({ status: 200, closeCode: 1008 });

    const before = (await opampRefusals(b)).revoked ?? 0;
    const again = await refusedUpgrade(b.urls.opamp, {}, mine);
    expect(again.status).to.equal(401);
    expect((await opampRefusals(b)).revoked).to.equal(before + 1);
  });
});

describe('the binding rule across two replicas (PostgreSQL)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let serverPki: TestPki;
  let agentPki: TestPki;
  let a: App;
  let b: App;
  let ca: string;

  before(async () => {
    db = await createTestDatabase();
    serverPki = createPki('Server CA');
    agentPki = createPki('Agent CA');
    ca = serverPki.ca.cert;
    const config = bindingConfig(serverPki, agentPki, { database: db.config });
    a = await startApp({ config });
    b = await startApp({ config });
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await db?.drop();
    serverPki?.cleanup();
    agentPki?.cleanup();
  });

  it("refuses on one replica a certificate issued on the other for another agent's id; its selector travels", async () => {
    const victim = newUid();
    const own = await WsAgent.open(a.urls.opamp, { ca, headers: bearerOf(tokens.victim) });
    expect((await own.send(describedAs(victim, 'prod'))).errorResponse).to.equal(undefined);
    await own.close();
    const mine = newUid();
    const attacker = await enroll(a.urls.opamp, ca, agentPki, tokens.dev, mine);
    await attacker.enrolling.close();

    const before = await opampRefusals(b);
    const onB = await WsAgent.open(b.urls.opamp, attacker.tls);
    expect((await onB.send(describedAs(victim, 'dev'))).errorResponse?.errorMessage).to.match(/speaks only/);
    expect((await onB.send(describedAs(mine, 'prod', 1))).errorResponse?.errorMessage).to.match(/selector/);
    expect(
      (await onB.send(describedAs(mine, 'dev', 2))).errorResponse,
      'its own id, inside its selector',
    ).to.equal(undefined);
    await onB.close();
    expect((await postHttps(b.urls.opamp, describedAs(newUid(), 'dev'), attacker.tls)).status).to.equal(403);
    const after = await opampRefusals(b);
    expect((after.uid_not_in_certificate ?? 0) - (before.uid_not_in_certificate ?? 0)).to.equal(2);
    expect((after.selector ?? 0) - (before.selector ?? 0)).to.equal(1);

    const back = await WsAgent.open(b.urls.opamp, { ca, headers: bearerOf(tokens.victim) });
    expect(
      (await back.send(describedAs(victim, 'prod', 1))).errorResponse,
      'the victim keeps its id',
    ).to.equal(undefined);
    await back.close();
  });

  it('closes, on the other replica, every connection admitted for an id revoked on one', async () => {
    const uid = newUid();
    const first = await WsAgent.open(b.urls.opamp, { ca, headers: bearerOf(tokens.victim) });
    expect((await first.send(describedAs(uid, 'prod'))).errorResponse).to.equal(undefined);
    const second = await WsAgent.open(b.urls.opamp, { ca, headers: bearerOf(tokens.victim) });
    expect((await second.send(describedAs(uid, 'prod', 1))).errorResponse).to.equal(undefined);
    const firstClosed = closeOf(first);
    expect(await revokeWhileConnected(a.urls.ui, uid, second)).to.deep.equal({
      status: 200,
      closeCode: 1008,
    });
    expect(await firstClosed, 'the socket no longer holding it').to.equal(1008);
  });
});
