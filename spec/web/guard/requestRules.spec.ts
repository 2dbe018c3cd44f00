import { expect } from 'chai';
import {
  hostProblem,
  isJsonType,
  refusalOf,
  type RequestHeaders,
} from '../../../src/web/guard/requestRules.ts';

const post: RequestHeaders = {
  method: 'POST',
  path: '/api/configs',
  host: 'fleet.example:8080',
  origin: '',
  fetchSite: '',
  contentType: 'application/json',
  hasBody: true,
};
const open = { allowedHosts: [], allowedOrigins: [] };

describe('request rules of the UI listener', () => {
  it('lets a JSON write without browser headers through (curl, SDKs)', () => {
    expect(refusalOf(post, open)).to.equal(undefined);
    expect(refusalOf({ ...post, contentType: '', hasBody: false }, open)).to.equal(undefined);
  });

  it('trusts Sec-Fetch-Site same-origin and none, and refuses same-site and cross-site', () => {
    expect(refusalOf({ ...post, fetchSite: 'same-origin' }, open)).to.equal(undefined);
    expect(refusalOf({ ...post, fetchSite: 'none' }, open)).to.equal(undefined);
    expect(refusalOf({ ...post, fetchSite: 'same-site' }, open)?.reason).to.equal('cross_site');
    expect(refusalOf({ ...post, fetchSite: 'cross-site' }, open)?.status).to.equal(403);
  });

  it('falls back to Origin against Host, and lets ui.allowed_origins through', () => {
    expect(refusalOf({ ...post, origin: 'http://fleet.example:8080' }, open)).to.equal(undefined);
    expect(refusalOf({ ...post, origin: 'http://fleet.example:8081' }, open)?.reason).to.equal('cross_site');
    expect(refusalOf({ ...post, origin: 'null' }, open)?.reason).to.equal('cross_site');
    const policy = { allowedHosts: [], allowedOrigins: ['https://console.example'] };
    expect(
      refusalOf({ ...post, origin: 'https://console.example', fetchSite: 'cross-site' }, policy),
    ).to.equal(undefined);
  });

  it('never refuses a read for its origin', () => {
    expect(
      refusalOf({ ...post, method: 'GET', fetchSite: 'cross-site', contentType: 'text/plain' }, open),
    ).to.equal(undefined);
  });

  it('takes API bodies only as JSON, which no form can send (415)', () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])
      expect(refusalOf({ ...post, contentType: type }, open)?.status, type).to.equal(415);
    expect(refusalOf({ ...post, contentType: '' }, open)?.reason).to.equal('content_type');
    expect(
      refusalOf({ ...post, path: '/jobs/1/cancel', contentType: 'application/x-www-form-urlencoded' }, open),
    ).to.be.undefined;
    expect(isJsonType('application/json; charset=utf-8')).to.equal(true);
    expect(isJsonType('application/merge-patch+json')).to.equal(true);
    expect(isJsonType('text/json')).to.equal(false);
  });

  it('answers only the configured hosts, by name or name:port', () => {
    expect(hostProblem('anything', [])).to.equal(undefined);
    expect(hostProblem('Fleet.Example:8080', ['fleet.example'])).to.equal(undefined);
    expect(hostProblem('fleet.example:8080', ['fleet.example:8080'])).to.equal(undefined);
    expect(hostProblem('fleet.example:9', ['fleet.example:8080'])).to.match(/not in ui.allowed_hosts/);
    expect(hostProblem('', ['fleet.example'])).to.match(/not in ui.allowed_hosts/);
    expect(
      refusalOf({ ...post, method: 'GET', host: 'rebound.example' }, { ...open, allowedHosts: ['x'] })
        ?.reason,
    ).to.equal('host');
  });
});
