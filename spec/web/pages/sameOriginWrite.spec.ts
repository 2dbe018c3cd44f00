import { expect } from 'chai';
import { crossSiteProblem, type WriteHeaders } from '../../../src/web/pages/sameOriginWrite.ts';

const page: WriteHeaders = {
  hxRequest: 'true',
  origin: 'https://fleet.example:8080',
  fetchSite: 'same-origin',
  host: 'fleet.example:8080',
};

describe('writes from this UI only', () => {
  it('accepts an htmx request from a page of this host', () => {
    expect(crossSiteProblem(page)).to.equal(undefined);
    expect(
      crossSiteProblem({ ...page, origin: 'http://FLEET.example:8080', host: 'Fleet.Example:8080' }),
    ).to.equal(undefined);
  });

  it('accepts an htmx request without origin headers (an older browser, or a script of the same page)', () => {
    expect(crossSiteProblem({ ...page, origin: '', fetchSite: '' })).to.equal(undefined);
  });

  it('refuses a request that is not htmx’s: a plain form another site could post', () => {
    expect(crossSiteProblem({ ...page, hxRequest: '' })).to.match(/HX-Request missing/);
  });

  it('refuses a request another site or origin started', () => {
    expect(crossSiteProblem({ ...page, fetchSite: 'cross-site' })).to.match(/Sec-Fetch-Site: cross-site/);
    expect(crossSiteProblem({ ...page, fetchSite: 'same-site' })).to.match(/Sec-Fetch-Site: same-site/);
    // Without Sec-Fetch-Site (older browsers), the Origin decides.
    const old = { ...page, fetchSite: '' };
    expect(crossSiteProblem({ ...old, origin: 'https://evil.example' })).to.match(/Origin: https:\/\/evil/);
    expect(crossSiteProblem({ ...old, origin: 'https://fleet.example:9999' })).to.match(/Origin/);
    expect(crossSiteProblem({ ...old, origin: 'null' })).to.match(/Origin: null/);
  });
});
