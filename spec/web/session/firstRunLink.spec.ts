// The first-run admin link (docs/security.md "The first-run link"): `npm start`'s process with no
// way to authenticate a person prints one sign-in URL; it opens an admin session once, and is
// refused the second time. It is never printed once OpenID Connect is configured, nor when
// auth.first_run_link is false.

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'first-run-'));
const loopback =
  'listeners: {opamp: "127.0.0.1:0", ui: "127.0.0.1:0", telemetry: "127.0.0.1:0"}\nshutdown: {drain_delay: 0s}\n';

interface Started {
  readonly output: () => string;
  stop(): Promise<void>;
}

/** Starts `node src/main.ts -config FILE` and waits until it says it is listening. */
async function startService(yaml: string): Promise<Started> {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, loopback + yaml);
  const child = spawn(process.execPath, ['src/main.ts', '-config', file], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening after 20 s:\n${output}`)), 20_000);
    const read = (d: Buffer) => {
      output += d.toString();
      if (output.includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', () => reject(new Error(`exited:\n${output}`)));
  });
  return {
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const linkIn = (text: string) => /(https?:\/\/\S+\/auth\/first-run\?code=[A-Za-z0-9_-]+)/.exec(text)?.[1];

describe('the first-run admin link', function () {
  this.timeout(60_000);

  it('is printed once at startup, opens an admin session, and is refused the second time', async () => {
    const service = await startService('');
    try {
      const link = linkIn(service.output());
      expect(link, service.output()).to.be.a('string');
      expect(service.output()).to.include('auth.oidc').and.include('15 minutes');
      const ui = new URL(link!).origin;
      // A browser that opens the editor unsigned is sent to sign in; a script gets the refusal.
      const browser = await fetch(`${ui}/new-config`, {
        redirect: 'manual',
        headers: { Accept: 'text/html' },
      });
      expect(browser.status).to.equal(303);
      expect(browser.headers.get('location')).to.equal('/auth/sign-in?return_to=%2Fnew-config');
      expect((await fetch(`${ui}/new-config`, { redirect: 'manual' })).status).to.equal(403);

      const first = await fetch(link!, { redirect: 'manual' });
      expect(first.status).to.equal(303);
      const cookie = first.headers.getSetCookie().find((c) => c.startsWith('svc_session='));
      expect(cookie)
        .to.match(/HttpOnly/)
        .and.match(/SameSite=Lax/);
      const session = cookie!.split(';')[0]!;
      const editor = await fetch(`${ui}/new-config`, { headers: { Cookie: session } });
      expect(editor.status).to.equal(200);
      const page = await editor.text();
      expect(page).to.include('first-run admin').and.include('data-viewer-role>admin<');

      const again = await fetch(link!, { redirect: 'manual' });
      expect(again.status).to.equal(403);
      expect(
        again.headers
          .getSetCookie()
          .some((c) => c.startsWith('svc_session=') && !c.startsWith('svc_session=;')),
      ).to.equal(false);
      expect(await again.text()).to.include('used already');
    } finally {
      await service.stop();
    }
  });

  it('is not printed once an OpenID Connect provider is configured, nor with auth.first_run_link: false', async () => {
    for (const yaml of [
      'auth: {oidc: {issuer: "https://login.example.org/", client_id: fleet, client_secret: s}}\n',
      'auth: {first_run_link: false}\n',
    ]) {
      const service = await startService(yaml);
      try {
        expect(linkIn(service.output()), yaml).to.equal(undefined);
        const ui = /ui: "(http:\/\/[^"]+)"/.exec(service.output())?.[1];
        const guess = await fetch(`${ui}/auth/first-run?code=${'A'.repeat(43)}`, { redirect: 'manual' });
        expect(guess.status).to.equal(403);
      } finally {
        await service.stop();
      }
    }
  });
});
