import { expect } from 'chai';
import { parseSpiffeId, spiffeIdOf, subjectAltNames } from '../../../src/io/tls/spiffeId.ts';

describe('SPIFFE identity of a client certificate', () => {
  it('takes the single spiffe:// URI SAN, ignoring DNS and IP entries', () => {
    const r = spiffeIdOf(
      'DNS:agent.example.org, URI:spiffe://example.org/ns/prod/sa/viewer, IP Address:127.0.0.1',
    );
    expect(r).to.deep.equal({ ok: true, id: 'spiffe://example.org/ns/prod/sa/viewer' });
  });

  it('has no identity without a URI SAN, or without any SAN', () => {
    expect(spiffeIdOf('DNS:agent.example.org')).to.deep.equal({ ok: false, reason: 'no URI SAN' });
    expect(spiffeIdOf(undefined)).to.deep.equal({ ok: false, reason: 'no URI SAN' });
  });

  it('has no identity with two URI SANs, even when both are SPIFFE IDs', () => {
    const r = spiffeIdOf('URI:spiffe://example.org/a, URI:spiffe://example.org/b');
    expect(r).to.deep.equal({ ok: false, reason: 'several URI SANs' });
  });

  it('has no identity when the URI SAN has another scheme', () => {
    expect(spiffeIdOf('URI:https://example.org/a')).to.deep.equal({
      ok: false,
      reason: 'URI SAN is not a spiffe:// ID',
    });
  });

  it('rejects malformed SPIFFE IDs', () => {
    for (const bad of [
      'spiffe://example.org', // no path
      'spiffe://example.org/', // empty path
      'spiffe:///path', // no trust domain
      'spiffe://Example.org/a', // uppercase trust domain
      'spiffe://example.org:8443/a', // port
      'spiffe://user@example.org/a', // userinfo
      'spiffe://example.org/a/', // trailing slash
      'spiffe://example.org/a//b', // empty segment
      'spiffe://example.org/a/../b', // dot segment
      'spiffe://example.org/a?x=1', // query
      'spiffe://example.org/a#f', // fragment
      `spiffe://example.org/${'a'.repeat(2048)}`, // too long
    ]) {
      expect(parseSpiffeId(bad), bad).to.equal(undefined);
      expect(spiffeIdOf(`URI:${bad}`).ok, bad).to.equal(false);
    }
  });

  it('reads a quoted SAN value as one entry, so a comma cannot smuggle in a second identity', () => {
    expect(
      subjectAltNames('URI:"spiffe://example.org/a, URI:spiffe://example.org/admin", DNS:x'),
    ).to.deep.equal([
      { type: 'URI', value: 'spiffe://example.org/a, URI:spiffe://example.org/admin' },
      { type: 'DNS', value: 'x' },
    ]);
    expect(spiffeIdOf('URI:"spiffe://example.org/a, URI:spiffe://example.org/admin"')).to.deep.equal({
      ok: false,
      reason: 'malformed SPIFFE ID',
    });
  });
});
