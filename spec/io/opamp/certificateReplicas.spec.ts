// Agent certificates across two replicas on one real PostgreSQL: a certificate issued by one replica
// is recorded in the shared store and lets the agent into the other; revoked on the first, the
// second closes the agent's live connection and refuses its next one with 401.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { agentMessage, newUid, refusedUpgrade, WsAgent } from '../../support/agentClient.ts';
import { opampRefusals } from '../../support/opampRefusals.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';
import { opensslCsr } from '../tls/testCsr.ts';
import { createPki, type TestPki } from '../tls/testPki.ts';
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
