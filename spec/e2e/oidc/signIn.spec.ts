// People sign in through a real OpenID Provider (Ory Hydra, hydra.ts) in Chromium: an admin group
// member creates a config; a viewer finds no write control and a forged write refused; tampered,
// expired and foreign ID tokens, a wrong state and a replayed code are refused; the provider's
// signing key rotates and sign-in keeps working; sign-out on one replica ends the session on the
// other (two services on one PostgreSQL).

import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { App } from '../../../src/app.ts';
import { peerBinary } from '../../interop/support/peers.ts';
import { createTestDatabase, freePort, type TestDatabase } from '../../support/postgres.ts';
import { launchBrowser, requireChromium, screenshot } from '../browserHarness.ts';
import { startHydra, type Hydra } from './hydra.ts';
import {
  answerLogin,
  movableClock,
  signIn,
  startReplica,
  users,
  viewerName,
  viewerRole,
} from './signInFixture.ts';

const [alice, victor, nora] = users as [(typeof users)[0], (typeof users)[0], (typeof users)[0]];

/** The ID token's payload changed (its signature kept): what a forger would send. */
function forgeGroups(idToken: string, groups: string[]): string {
  const [header, payload, signature] = idToken.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  const forged = Buffer.from(JSON.stringify({ ...claims, groups }), 'utf8').toString('base64url');
  return `${header}.${forged}.${signature}`;
}

/** The refusal page's text (whole in assertion messages). */
const refusal = async (page: Page) => String(await page.locator('main').textContent()).replace(/\s+/g, ' ');

function expectRefusal(text: string, reason: RegExp): void {
  expect(text, text).to.match(reason);
}

describe('signing in through OpenID Connect (Ory Hydra, Chromium)', function () {
  this.timeout(180_000);
  let hydraDb: TestDatabase;
  let appDb: TestDatabase;
  let hydra: Hydra;
  let browser: Browser;
  let a: App;
  let b: App;
  let other: App | undefined;
  const clock = movableClock();
  let ui: { a: string; b: string };
  let client: { id: string; secret: string };
  let context: BrowserContext;
  let page: Page;

  before(async function () {
    requireChromium(this);
    const binary = peerBinary(this, 'hydra');
    [hydraDb, appDb] = [await createTestDatabase(), await createTestDatabase()];
    hydra = await startHydra(binary, hydraDb, users);
    const [portA, portB] = [await freePort(), await freePort()];
    ui = { a: `http://127.0.0.1:${portA}`, b: `http://127.0.0.1:${portB}` };
    client = await hydra.createClient([`${ui.a}/auth/callback`, `${ui.b}/auth/callback`]);
    const settings = { issuer: hydra.issuer, clientId: client.id, secret: client.secret };
    a = await startReplica(portA, settings, appDb.config, clock.scheduler);
    b = await startReplica(portB, settings, appDb.config);
    browser = await launchBrowser();
  });

  beforeEach(async () => {
    hydra.front.tamper = undefined;
    hydra.front.redirect = undefined;
    clock.offsetMs = 0;
    context = await browser.newContext();
    page = await context.newPage();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await screenshot(page, `oidc-${Date.now()}.png`);
    await context.close();
  });

  after(async () => {
    await browser?.close();
    await Promise.all([a?.stop(), b?.stop(), other?.stop()]);
    await hydra?.stop();
    await Promise.all([hydraDb?.drop(), appDb?.drop()]);
  });

  it('sends an admin group member to the provider and back to the editor, where they create a config', async () => {
    await signIn(page, `${ui.a}/new-config`, alice, /\/new-config$/);
    expect(await viewerName(page)).to.equal('alice@example.org');
    expect(await viewerRole(page)).to.equal('admin');
    await page.fill('input[name="name"]', 'signed-in');
    await page.fill('input[name="selector"]', 'host.name="edge-1"');
    await page.fill('textarea[name="body"]', 'receivers:\n  otlp:\n    protocols: {}\n');
    // Save says how many agents it sends to and asks first (docs/ui.md "Config editor").
    page.once('dialog', (dialog) => void dialog.accept());
    await Promise.all([page.waitForURL(/\/configs\/signed-in$/), page.click('button[data-sends]')]);
    const config = (await (await fetch(`${ui.b}/api/configs/signed-in`)).json()) as { updated_by: string };
    expect(config.updated_by).to.equal('alice@example.org');
    // The write is in the audit log, with the person who made it, on the page and in the API.
    await page.goto(`${ui.b}/audit?target=signed-in`);
    expect(await page.locator('tr[data-audit-action="config.create"]').textContent())
      .to.include('alice@example.org')
      .and.include('session user-alice');
    const audit = await page.evaluate(async () => (await fetch('/api/audit?action=config.create')).json());
    expect((audit as { entries: { actor: unknown; via: string }[] }).entries[0]).to.deep.include({
      actor: { kind: 'session', id: 'user-alice', name: 'alice@example.org' },
      via: 'ui',
    });
  });

  it('shows a viewer no write control and refuses a forged write with 403', async () => {
    await signIn(page, `${ui.a}/auth/sign-in?return_to=/configs`, victor, /\/configs$/);
    expect(await viewerRole(page)).to.equal('viewer');
    expect(
      await page
        .locator('a[href="/new-config"], a[href$="/edit"], form:not([action="/auth/sign-out"])')
        .count(),
    ).to.equal(0);
    const forged = await page.evaluate(async () => {
      const answer = await fetch('/api/configs', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'forged', selector: 'a=b', body: 'receivers: {}\n' }),
      });
      return { status: answer.status, text: await answer.text() };
    });
    expect(forged.status).to.equal(403);
    expect(forged.text).to.include('victor@example.org has role viewer');
    const editor = await page.goto(`${ui.a}/new-config`);
    expect(editor?.status()).to.equal(403);
  });

  it('refuses a person none of whose groups is mapped', async () => {
    await page.goto(`${ui.a}/auth/sign-in`);
    await answerLogin(page, nora);
    await page.waitForURL(/\/auth\/callback/);
    expect(await page.locator('main').textContent()).to.include('nora@example.org has no role here');
    expect(await page.locator('[data-viewer-name]').count()).to.equal(0);
  });

  it('refuses an ID token whose claims were changed after signing', async () => {
    hydra.front.tamper = (answer) => ({
      ...answer,
      id_token: forgeGroups(String(answer.id_token), ['fleet-admins']),
    });
    await page.goto(`${ui.a}/auth/sign-in`);
    await answerLogin(page, victor);
    await page.waitForURL(/\/auth\/callback/);
    expectRefusal(await refusal(page), /did not check out: .*signature/i);
    expect((await context.cookies(ui.a)).map((c) => c.name)).not.to.include('svc_session');
  });

  it('refuses an ID token that has expired by the service clock', async () => {
    clock.offsetMs = 3 * 3600_000;
    await page.goto(`${ui.a}/auth/sign-in`);
    await answerLogin(page, alice);
    await page.waitForURL(/\/auth\/callback/);
    expectRefusal(await refusal(page), /did not check out: .*"exp"/);
    expect((await context.cookies(ui.a)).map((c) => c.name)).not.to.include('svc_session');
  });

  it('refuses a callback whose state is not the one the sign-in started with', async () => {
    hydra.front.redirect = (location) => {
      const url = new URL(location);
      if (url.pathname === '/auth/callback') url.searchParams.set('state', 'not-the-state');
      return url.href;
    };
    await page.goto(`${ui.a}/auth/sign-in`);
    await answerLogin(page, alice);
    await page.waitForURL(/\/auth\/callback/);
    expectRefusal(await refusal(page), /did not check out: .*"state"/);
    expect((await context.cookies(ui.a)).map((c) => c.name)).not.to.include('svc_session');
  });

  it('refuses a code used once already, even with the pending sign-in it was issued for', async () => {
    let callback = '';
    hydra.front.redirect = (location) => {
      if (new URL(location).pathname === '/auth/callback') callback = location;
      return location;
    };
    await page.goto(`${ui.a}/auth/sign-in`);
    const pending = (await context.cookies(`${ui.a}/auth/callback`)).filter((c) => c.name === 'svc_sign_in');
    expect(pending).to.have.length(1);
    await answerLogin(page, alice);
    await page.waitForURL(`${ui.a}/`);
    expect(await viewerName(page)).to.equal('alice@example.org');
    const replay = await browser.newContext();
    try {
      await replay.addCookies(pending);
      const replayPage = await replay.newPage();
      const answer = await replayPage.goto(callback);
      expect(answer?.status()).to.equal(403);
      expectRefusal(await refusal(replayPage), /did not check out: .*invalid_grant/);
      expect((await replay.cookies(ui.a)).map((c) => c.name)).not.to.include('svc_session');
    } finally {
      await replay.close();
    }
  });

  it('refuses an ID token issued to another client (audience)', async () => {
    const port = await freePort();
    const otherUi = `http://127.0.0.1:${port}`;
    const second = await hydra.createClient([`${otherUi}/auth/callback`]);
    other = await startReplica(
      port,
      { issuer: hydra.issuer, clientId: second.id, secret: second.secret },
      undefined,
    );
    let foreign = '';
    hydra.front.tamper = (answer) => {
      foreign = String(answer.id_token);
      return answer;
    };
    await signIn(page, `${otherUi}/auth/sign-in`, victor, /\/$/);
    expect(foreign).not.to.equal('');
    hydra.front.tamper = (answer) => ({ ...answer, id_token: foreign });
    await page.goto(`${ui.a}/auth/sign-in`);
    await answerLogin(page, victor);
    await page.waitForURL(/\/auth\/callback/);
    expectRefusal(await refusal(page), /did not check out: .*"aud"/);
  });

  it('keeps signing people in after the provider rotates its signing key', async () => {
    let kid = '';
    const kidOf = (token: string) =>
      (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as { kid: string }).kid;
    hydra.front.tamper = (answer) => {
      kid = kidOf(String(answer.id_token));
      return answer;
    };
    await signIn(page, `${ui.a}/auth/sign-in`, alice, /\/$/);
    const before = kid;
    const rotated = await hydra.rotateSigningKey();
    await context.clearCookies();
    await signIn(page, `${ui.a}/auth/sign-in`, alice, /\/$/);
    expect(before).not.to.equal(rotated);
    expect(kid).to.equal(rotated);
    expect(await viewerName(page)).to.equal('alice@example.org');
  });

  it('ends the session on every replica when the person signs out on one', async () => {
    await signIn(page, `${ui.a}/auth/sign-in`, alice, /\/$/);
    const [session] = (await context.cookies(ui.a)).filter((c) => c.name === 'svc_session');
    expect(session?.httpOnly).to.equal(true);
    expect(session?.sameSite).to.equal('Lax');
    await page.goto(`${ui.b}/`);
    expect(await viewerName(page)).to.equal('alice@example.org');
    await Promise.all([page.waitForURL(`${ui.b}/`), page.click('button:text("Sign out")')]);
    expect(await page.locator('a:text("Sign in")').count()).to.equal(1);
    // The cookie the browser dropped, presented again to the other replica, opens nothing.
    const replayed = await fetch(`${ui.a}/new-config`, {
      headers: { Cookie: `svc_session=${session!.value}`, Accept: 'text/html' },
      redirect: 'manual',
    });
    expect(replayed.status).to.equal(303);
    expect(replayed.headers.get('location')).to.equal('/auth/sign-in?return_to=%2Fnew-config');
  });

  it('ends a session past its idle lifetime', async () => {
    await signIn(page, `${ui.a}/auth/sign-in?return_to=/new-config`, alice, /\/new-config$/);
    clock.offsetMs = 2 * 3600_000;
    await page.goto(`${ui.a}/new-config`);
    // Sent to sign in again: the provider's login page.
    await page.waitForSelector('#username');
    expect((await context.cookies(ui.a)).map((c) => c.name)).not.to.include('svc_session');
  });
});
