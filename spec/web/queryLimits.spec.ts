import { expect } from 'chai';
import type { App } from '../../src/app.ts';
import { startApp } from '../support/startApp.ts';

// Issue 7: query strings of /api/* and of the UI pages and fragments take at most 32 matchers and
// regex values of at most 1 KiB; beyond that the answer is 400 on every surface, not a slow scan.
const surfaces = ['/api/agents', '/', '/partials/agents'];
const matchers = (n: number) =>
  Array.from({ length: n }, (_, i) => `match=${encodeURIComponent(`k${i}=v`)}`).join('&');
const regex = (bytes: number) => `match=${encodeURIComponent(`k=~${'a'.repeat(bytes)}`)}`;

describe('query-string limits on the UI listener', () => {
  let app: App;
  before(async () => {
    app = await startApp();
  });
  after(async () => {
    await app.stop();
  });
  const status = async (path: string, query: string) =>
    (await fetch(`${app.urls.ui}${path}?${query}`)).status;

  it('accepts 32 matchers and answers 400 to 33, on the API and the UI', async () => {
    for (const path of surfaces) {
      expect(await status(path, matchers(32)), path).to.equal(200);
      expect(await status(path, matchers(33)), path).to.equal(400);
    }
  });

  it('accepts a 1 KiB regex and answers 400 to one byte more, on the API and the UI', async () => {
    for (const path of surfaces) {
      expect(await status(path, regex(1024)), path).to.equal(200);
      expect(await status(path, regex(1025)), path).to.equal(400);
    }
  });
});
