import { expect } from 'chai';
import { filterParams, isQueryStringFilter } from '../../../src/projections/filter/filterText.ts';

describe('a job filter as written', () => {
  it('reads a matcher list as one match list, as the fleet box sends it', () => {
    expect([...filterParams('connected=true, service.name=~"otel&co.*"')]).to.deep.equal([
      ['match', 'connected=true, service.name=~"otel&co.*"'],
    ]);
  });

  it('reads the query-string form of older jobs as a query string', () => {
    expect(isQueryStringFilter('connected=true&match=env=prod')).to.equal(true);
    expect(isQueryStringFilter('match=env=~"a|b"')).to.equal(true);
    expect(isQueryStringFilter('component=otlp')).to.equal(true);
    expect([...filterParams('connected=true&match=env=prod')]).to.deep.equal([
      ['connected', 'true'],
      ['match', 'env=prod'],
    ]);
  });

  it('reads one plain key=value the same either way, as a query string', () => {
    expect([...filterParams('connected=true')]).to.deep.equal([['connected', 'true']]);
    expect([...filterParams('healthy=false, connected=true')]).to.deep.equal([
      ['match', 'healthy=false, connected=true'],
    ]);
  });

  it('takes an empty filter as every agent', () => {
    expect([...filterParams('')]).to.deep.equal([]);
  });
});
