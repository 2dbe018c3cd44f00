// Enrollment tokens against the running service, over both transports, with real clients.

import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import type { App } from '../../../src/app.ts';
import { createLogger } from '../../../src/io/logger.ts';
import { createEnrollment, knownHeadersMax } from '../../../src/io/opamp/enrollment.ts';
import {
  agentMessage,
  newUid,
  postHttp,
  refusedUpgrade as refused,
  WsAgent,
} from '../../support/agentClient.ts';
import { opampRefusals } from '../../support/opampRefusals.ts';
import { startApp } from '../../support/startApp.ts';

const token = 'enroll-3f9a1c7e5b';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

/** A WebSocket upgrade the server refuses: its status and WWW-Authenticate. */
async function refusedUpgrade(url: string, headers: Record<string, string>) {
  const answer = await refused(url, headers);
  return { status: answer.status, challenge: answer.headers['www-authenticate'] };
}

const refusals = opampRefusals;

describe('enrollment tokens (agents.tokens)', () => {
  let app: App;
  before(async () => {
    app = await startApp({ config: { agents: { tokens: [{ name: 'fleet-a', sha256: sha256(token) }] } } });
  });
  after(() => app.stop());

  it('refuses a WebSocket upgrade without a token or with an unknown one: 401, WWW-Authenticate: Bearer', async () => {
    expect(await refusedUpgrade(app.urls.opamp, {})).to.deep.equal({ status: 401, challenge: 'Bearer' });
    expect(await refusedUpgrade(app.urls.opamp, bearer('guessed'))).to.deep.equal({
      status: 401,
      challenge: 'Bearer',
    });
    expect(app.registry.size, 'nothing registered').to.equal(0);
  });

  it('refuses a plain-HTTP request the same way, before reading it', async () => {
    const none = await postHttp(app.urls.opamp, agentMessage(newUid()));
    expect([none.status, none.headers.get('www-authenticate')]).to.deep.equal([401, 'Bearer']);
    const wrong = await postHttp(app.urls.opamp, agentMessage(newUid()), bearer(`${token}x`));
    expect(wrong.status).to.equal(401);
    expect(app.registry.size).to.equal(0);
  });

  it('lets an agent with a configured token in, over both transports', async () => {
    const ws = await WsAgent.open(app.urls.opamp, { headers: bearer(token) });
    const uid = newUid();
    const reply = await ws.send(agentMessage(uid));
    expect(Buffer.from(reply.instanceUid).toString('hex')).to.equal(uid.replaceAll('-', ''));
    await ws.close();
    const http = await postHttp(app.urls.opamp, agentMessage(newUid()), bearer(token));
    expect(http.status).to.equal(200);
  });

  it('counts every refusal by reason', async () => {
    const before = await refusals(app);
    await postHttp(app.urls.opamp, agentMessage(newUid()));
    await postHttp(app.urls.opamp, agentMessage(newUid()), bearer('nope'));
    await refusedUpgrade(app.urls.opamp, bearer('nope'));
    const after = await refusals(app);
    expect((after.missing_credential ?? 0) - (before.missing_credential ?? 0)).to.equal(1);
    expect((after.unknown_credential ?? 0) - (before.unknown_credential ?? 0)).to.equal(2);
  });
});

describe('checking a bearer token', () => {
  const enrollment = createEnrollment([{ name: 'a', sha256: sha256(token) }]);

  it('names the token presented, and tells a missing credential from an unknown one', () => {
    expect(enrollment.check(`Bearer ${token}`)).to.deep.equal({ ok: true, token: 'a', gateway: false });
    expect(enrollment.check(`bearer ${token}`), 'the scheme is case-insensitive').to.deep.equal({
      ok: true,
      token: 'a',
      gateway: false,
    });
    expect(enrollment.check(undefined)).to.deep.equal({ ok: false, reason: 'missing_credential' });
    expect(enrollment.check(`Basic ${token}`)).to.deep.equal({ ok: false, reason: 'missing_credential' });
    expect(enrollment.check('Bearer other')).to.deep.equal({ ok: false, reason: 'unknown_credential' });
  });

  it('answers a header it accepted before the same way, also after more headers than it remembers', () => {
    const headers = Array.from({ length: knownHeadersMax + 5 }, (_, n) => `Bearer ${token}${' '.repeat(n)}`);
    for (const round of [1, 2])
      for (const header of headers)
        expect(enrollment.check(header), `round ${round}`).to.deep.equal({
          ok: true,
          token: 'a',
          gateway: false,
        });
    expect(enrollment.check('Bearer other'), 'a guess is never remembered as accepted').to.deep.equal({
      ok: false,
      reason: 'unknown_credential',
    });
    expect(enrollment.check(`Bearer ${token}x`)).to.deep.equal({ ok: false, reason: 'unknown_credential' });
  });

  it('lets every request in when no token is configured', () => {
    const open = createEnrollment([]);
    expect(open.required).to.equal(false);
    expect(open.check(undefined)).to.deep.equal({ ok: true, token: undefined });
  });
});

describe('the unauthenticated-agents warning', () => {
  /** The warnings the service logs while starting with `config`. */
  async function startupWarnings(config: Record<string, unknown>): Promise<string[]> {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: 'warn', format: 'json', destination });
    const app = await startApp({ config, deps: { logger } });
    await app.stop();
    return lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
  }

  it('is logged once at startup when agents are not authenticated, and not when tokens are set', async () => {
    const open = await startupWarnings({});
    expect(open.filter((m) => m.startsWith('agents are not authenticated'))).to.have.length(1);
    const closed = await startupWarnings({ agents: { tokens: [{ name: 'a', sha256: sha256(token) }] } });
    expect(closed.filter((m) => m.startsWith('agents are not authenticated'))).to.deep.equal([]);
  });
});
