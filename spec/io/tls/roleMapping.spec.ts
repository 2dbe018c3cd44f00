import { expect } from 'chai';
import type { RoleMappingEntry } from '../../../src/io/config/schema.ts';
import { matchesPrefix, resolveRole } from '../../../src/io/tls/roleMapping.ts';

const td = 'spiffe://example.org';

describe('role mapping', () => {
  it('tries exact entries before prefix entries, whatever their order in the list', () => {
    const mapping: RoleMappingEntry[] = [
      { match: 'prefix', spiffe_id: `${td}/ops`, role: 'viewer' },
      { match: 'exact', spiffe_id: `${td}/ops/alice`, role: 'admin' },
    ];
    expect(resolveRole(`${td}/ops/alice`, mapping, 'none')).to.equal('admin');
    expect(resolveRole(`${td}/ops/bob`, mapping, 'none')).to.equal('viewer');
  });

  it('takes the first matching entry within each kind', () => {
    const mapping: RoleMappingEntry[] = [
      { match: 'prefix', spiffe_id: `${td}/ops`, role: 'admin' },
      { match: 'prefix', spiffe_id: `${td}/ops/readonly`, role: 'viewer' },
      { match: 'exact', spiffe_id: `${td}/x`, role: 'viewer' },
      { match: 'exact', spiffe_id: `${td}/x`, role: 'admin' },
    ];
    expect(resolveRole(`${td}/ops/readonly/carol`, mapping, 'none')).to.equal('admin');
    expect(resolveRole(`${td}/x`, mapping, 'none')).to.equal('viewer');
  });

  it('gives auth.default_role to a valid identity that matches no entry', () => {
    const mapping: RoleMappingEntry[] = [{ match: 'exact', spiffe_id: `${td}/a`, role: 'admin' }];
    expect(resolveRole(`${td}/b`, mapping, 'none')).to.equal('none');
    expect(resolveRole(`${td}/b`, mapping, 'viewer')).to.equal('viewer');
    expect(resolveRole(`${td}/b`, [], 'admin')).to.equal('admin');
  });

  it('matches prefixes on whole path segments', () => {
    expect(matchesPrefix(`${td}/ns/prod`, `${td}/ns/prod`)).to.equal(true);
    expect(matchesPrefix(`${td}/ns/prod/sa/x`, `${td}/ns/prod`)).to.equal(true);
    expect(matchesPrefix(`${td}/ns/production`, `${td}/ns/prod`)).to.equal(false);
    expect(matchesPrefix(`${td}/ns/prod-x`, `${td}/ns/`)).to.equal(true);
    expect(matchesPrefix(`${td}/anything`, td)).to.equal(true);
    expect(matchesPrefix('spiffe://example.organisation/a', td)).to.equal(false);
  });
});
