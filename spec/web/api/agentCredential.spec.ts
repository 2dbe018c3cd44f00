// What an agent authenticated with, in GET /api/agents/{id} and on its page, from the service's own
// credential store (in memory here; the PostgreSQL store answers the same questions), before and
// after a revocation.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import { readCredential } from '../../../src/web/read/agentCredentialRead.ts';
import { agentMessage, description, newUid, postHttp } from '../../support/agentClient.ts';
import { apiToken } from '../../support/apiTokens.ts';
import { startApp } from '../../support/startApp.ts';
import { get } from '../pages/pagesHarness.ts';
import { request } from './apiClient.ts';

const adminToken = 'credential-admin-token';

describe('an agent’s credential in the API and on its page', () => {
  let app: App;
  const bound = newUid() as InstanceUid;
  const unbound = newUid() as InstanceUid;
  const detail = async (uid: string) =>
    (await request(`${app.urls.ui}/api/agents/${uid}`)).json as {
      credential?: Record<string, unknown> | null;
    };
  const page = async (uid: string) => (await get(`${app.urls.ui}/agents/${uid}`)).body;

  before(async () => {
    app = await startApp({ config: { auth: { api_tokens: [apiToken('ops', adminToken, 'admin')] } } });
    for (const uid of [bound, unbound]) {
      const reply = await postHttp(
        app.urls.opamp,
        agentMessage(uid, { agentDescription: description({ 'service.name': 'c' }) }),
      );
      expect(reply.status).to.equal(200);
    }
    await app.credentials.bind(bound, { kind: 'token', name: 'enrollment-east' }, Date.UTC(2026, 10, 1));
  });
  after(() => app.stop());

  it('shows the token’s name and when the id was bound, never more of the token', async () => {
    expect((await detail(bound)).credential).to.deep.equal({
      kind: 'token',
      name: 'enrollment-east',
      serial: null,
      bound_at: '2026-11-01T00:00:00.000Z',
      revoked_at: null,
      revoked_by: null,
      certificates: [],
    });
    const html = await page(bound);
    expect(html).to.include('<h2>Credential</h2>');
    expect(html).to.include('enrollment-east');
  });

  it('says null, and on the page that none was presented, for an agent that never authenticated', async () => {
    expect((await detail(unbound)).credential).to.equal(null);
    expect(await page(unbound)).to.include('This agent has not presented a credential');
  });

  it('shows the revocation and who made it', async () => {
    const res = await request(`${app.urls.ui}/api/agents/${bound}/revoke`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminToken}` },
    });
    expect(res.status).to.equal(200);
    const credential = (await detail(bound)).credential!;
    expect(credential.revoked_by).to.equal('ops');
    expect(credential.revoked_at).to.be.a('string');
    const html = await page(bound);
    expect(html).to.match(
      /<span class="chip missing">revoked<\/span>[^<]*<time[^>]*>[^<]+<\/time>.*? by <span class="mono">ops<\/span>/,
    );
  });

  it('leaves the credential out when the store cannot be read', async () => {
    const down = {
      binding: () => Promise.reject(new Error('connection refused')),
      certificates: () => Promise.reject(new Error('connection refused')),
    };
    expect(await readCredential(down, bound, silentLogger())).to.equal(undefined);
  });
});
