import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { jobsUiPolicy, localizeFonts, noFontsPath, rewriteDashboardHtml } from '../../src/web/jobsUiShell.ts';

describe("what the UI listener adds around pg-boss's dashboard", () => {
  it('points the web-font addresses, in a page and in a script, at the local empty stylesheet', () => {
    const script =
      'return[{rel:`preconnect`,href:`https://fonts.googleapis.com`},{rel:`preconnect`,href:`https://fonts.gstatic.com`},' +
      '{rel:`stylesheet`,href:`https://fonts.googleapis.com/css2?family=Geist:wght@300..700&display=swap`}]';
    const out = localizeFonts(script);
    expect(out).not.to.match(/fonts\.g/);
    expect(out.split(noFontsPath)).to.have.length(4);
  });

  it('adds the home link and allows exactly the inline scripts of the page sent', () => {
    const inline = 'window.__ctx = {"a":1};';
    const page = rewriteDashboardHtml(
      `<html><head><link rel="stylesheet" href="https://fonts.googleapis.com/css2?x"/></head>` +
        `<body class="x"><script>${inline}</script><script type="module" src="/jobs-ui/a.js"></script></body></html>`,
    );
    expect(page.html).to.include(`<body class="x"><a href="/" data-fleet-home`);
    expect(page.html).to.include(`href="${noFontsPath}"`);
    expect(page.scriptHashes).to.deep.equal([createHash('sha256').update(inline).digest('base64')]);
    expect(jobsUiPolicy(page.scriptHashes)).to.match(
      /^default-src 'self'; script-src 'self' 'sha256-[^']+'; /,
    );
  });
});
