// Certificates on the wire are bounded (decideIssue, src/projections/identity/decideCertificate.ts):
// at most one outstanding per instance id, whoever asks and however often, and at most
// agents.ca.max_per_hour issued to one credential. Over plain HTTPS an offer joins its reply, so
// "nothing offered" is read from the reply itself.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { decodeServerToAgent } from '../../../src/io/opamp/codec.ts';
import { newUid, WsAgent } from '../../support/agentClient.ts';
import { opampRefusals } from '../../support/opampRefusals.ts';
import { startApp } from '../../support/startApp.ts';
import { httpsRequest } from '../tls/httpsClient.ts';
import { opensslCsr, type TestCsr } from '../tls/testCsr.ts';
import { createPki, type TestPki } from '../tls/testPki.ts';
import { bearer, certificateConfig, csrMessage, offerOf } from './certificateFlow.ts';

describe('certificate issue limits (agents.ca)', function () {
  this.timeout(20_000);
  let serverPki: TestPki;
  let agentPki: TestPki;
  let csr: TestCsr;
  let app: App;
  const maxPerHour = 5;

  before(async () => {
    serverPki = createPki('Server CA');
    agentPki = createPki('Agent CA');
    csr = opensslCsr(agentPki.dir, 'agent-key');
    const config = certificateConfig(serverPki, agentPki);
    const agents = config.agents as { ca: Record<string, unknown> };
    app = await startApp({
      config: { ...config, agents: { ...agents, ca: { ...agents.ca, max_per_hour: maxPerHour } } },
    });
  });
  after(async () => {
    await app?.stop();
    serverPki.cleanup();
    agentPki.cleanup();
  });

  /** Asks for a certificate for `uid` over plain HTTPS with the token: the offer of the reply, if any. */
  async function askHttps(uid: string) {
    const answer = await httpsRequest(
      `${app.urls.opamp}/v1/opamp`,
      { ca: serverPki.ca.cert },
      {
        method: 'POST',
        body: csrMessage(uid, csr.csrPem),
        headers: { 'Content-Type': 'application/x-protobuf', ...bearer },
      },
    );
    expect(answer.status).to.equal(200);
    return offerOf(decodeServerToAgent(answer.body));
  }

  it('offers nothing to a token holder asking again for an id whose certificate is outstanding', async () => {
    const uid = newUid();
    expect(await askHttps(uid), 'the first ask').to.not.equal(undefined);
    for (let i = 0; i < 3; i++) expect(await askHttps(uid), `ask ${i + 2}`).to.equal(undefined);
    expect(await app.credentials.certificates(uid as InstanceUid)).to.have.length(1);
  });

  it('issues one certificate for an id asked for on many connections at once', async () => {
    const uid = newUid();
    const offers = await Promise.all(Array.from({ length: 4 }, () => askHttps(uid)));
    expect(offers.filter((o) => o !== undefined)).to.have.length(1);
    expect(await app.credentials.certificates(uid as InstanceUid)).to.have.length(1);
  });

  it('refuses a credential past agents.ca.max_per_hour fresh ids, counted as csr_rate_limited', async () => {
    // The two specs above took two of this token's hour; it may have the rest.
    const before = (await opampRefusals(app)).csr_rate_limited ?? 0;
    const granted: (string | undefined)[] = [];
    for (let i = 0; i < maxPerHour; i++) {
      const uid = newUid();
      granted.push((await askHttps(uid)) === undefined ? undefined : uid);
    }
    expect(granted.filter((u) => u !== undefined)).to.have.length(maxPerHour - 2);
    expect((await opampRefusals(app)).csr_rate_limited).to.equal(before + 2);

    // Over WebSocket the refusal follows the reply as a BadRequest naming the limit.
    const ws = await WsAgent.open(app.urls.opamp, { ca: serverPki.ca.cert, headers: bearer });
    try {
      const uid = newUid();
      await ws.send(csrMessage(uid, csr.csrPem));
      const after = await ws.next();
      expect(after.errorResponse?.errorMessage).to.match(/agents\.ca\.max_per_hour/);
      expect(await app.credentials.certificates(uid as InstanceUid)).to.deep.equal([]);
    } finally {
      await ws.close();
    }
  });
});
