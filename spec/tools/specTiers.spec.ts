// The tiers are read off what each spec reaches, through the spec/ helpers it imports.

import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { specsOf, tierOf, tiers } from '../../tools/specTiers.ts';

const at = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

describe('spec tiers', () => {
  it('puts a spec of a pure decision in the unit tier', () => {
    expect(tierOf(at('spec/projections/agent/decideAgent.spec.ts'))).to.equal('unit');
  });

  it('puts a spec that reaches PostgreSQL only through two helpers in the integration tier', () => {
    // jobWrites.spec.ts imports jobsHarness.ts, which starts the service and PostgreSQL.
    expect(tierOf(at('spec/web/pages/jobWrites.spec.ts'))).to.equal('integration');
  });

  it('puts a spec that drives Chromium in the browser tier, whatever else it reaches', () => {
    expect(tierOf(at('spec/e2e/fleetUi.spec.ts'))).to.equal('browser');
  });

  it('gives every spec exactly one tier', () => {
    const all = tiers.flatMap((tier) => specsOf(tier));
    expect(new Set(all).size).to.equal(all.length);
    expect(all).to.include('spec/tools/specTiers.spec.ts');
  });
});
