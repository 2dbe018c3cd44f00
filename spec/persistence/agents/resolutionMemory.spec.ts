import { expect } from 'chai';
import {
  createResolutionMemory,
  sameResolution,
  type Resolution,
} from '../../../src/persistence/agents/resolutionMemory.ts';
import type { ResolvedTerm } from '../../../src/persistence/agents/filterSql.ts';
import { parseFleetQuery, type FleetFilter } from '../../../src/projections/filter/fleetFilter.ts';
import type { FilterTerm } from '../../../src/projections/filter/filterTerm.ts';

function filterOf(...matchers: string[]): FleetFilter {
  const parsed = parseFleetQuery(new URLSearchParams(matchers.map((m): [string, string] => ['match', m])));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.filter;
}

/** A resolution of `filter`'s terms, in order, as given (undefined: that term unresolved). */
function resolutionOf(filter: FleetFilter, ...terms: (ResolvedTerm | undefined)[]): Resolution {
  const map = new Map<FilterTerm, ResolvedTerm>();
  filter.terms.forEach((term, i) => terms[i] !== undefined && map.set(term, terms[i]));
  return map.size > 0 ? map : undefined;
}

const accepts = (...accepted: string[]): ResolvedTerm => ({ accepted, acceptsMissing: false });

describe('resolution memory (a regex list read with its last resolution)', () => {
  it('guesses a filter only when every regex term of it was resolved last time', () => {
    const memory = createResolutionMemory();
    const both = filterOf('service.name=~"svc-.*"', 'host.name!~"h1"');
    expect(memory.guess(both)).to.equal(undefined);
    memory.remember(both, resolutionOf(both, accepts('svc-1', 'svc-2'), undefined));
    expect(memory.guess(both), 'one term unresolved').to.equal(undefined);
    const one = filterOf('service.name=~"svc-.*"', 'env=prod');
    const guessed = memory.guess(one)!;
    expect([...guessed.values()]).to.deep.equal([accepts('svc-1', 'svc-2')]);
    expect([...guessed.keys()]).to.deep.equal([one.terms[0]]);
    memory.remember(both, resolutionOf(both, accepts('svc-3'), { accepted: [], acceptsMissing: true }));
    expect([...memory.guess(both)!.values()]).to.deep.equal([
      accepts('svc-3'),
      { accepted: [], acceptsMissing: true },
    ]);
    memory.remember(both, undefined);
    expect(memory.guess(one), 'forgotten when it no longer resolves').to.equal(undefined);
    expect(memory.guess(filterOf('env=prod')), 'no regex term: nothing to guess').to.equal(undefined);
  });

  it('keeps the last `limit` terms', () => {
    const memory = createResolutionMemory(2);
    const filters = ['a', 'b', 'c'].map((k) => filterOf(`${k}=~"x.*"`));
    for (const f of filters) memory.remember(f, resolutionOf(f, accepts('x1')));
    expect(filters.map((f) => memory.guess(f) !== undefined)).to.deep.equal([false, true, true]);
  });

  it('compares resolutions as the conditions they make: values in any order, unresolved alike', () => {
    const f = filterOf('service.name=~"svc-.*"', 'host.name=~"h.*"');
    const r = (a: ResolvedTerm | undefined, b: ResolvedTerm | undefined) => resolutionOf(f, a, b);
    expect(
      sameResolution(f, r(accepts('a', 'b'), accepts('h')), r(accepts('b', 'a'), accepts('h'))),
    ).to.equal(true);
    expect(sameResolution(f, r(accepts('a'), undefined), r(accepts('a'), undefined))).to.equal(true);
    expect(sameResolution(f, undefined, undefined)).to.equal(true);
    expect(sameResolution(f, r(accepts('a', 'b'), accepts('h')), r(accepts('a'), accepts('h')))).to.equal(
      false,
    );
    expect(
      sameResolution(f, r(accepts('a', 'b'), accepts('h')), r(accepts('a', 'c'), accepts('h'))),
    ).to.equal(false);
    expect(sameResolution(f, r(accepts('a'), accepts('h')), r(accepts('a'), undefined))).to.equal(false);
    expect(sameResolution(f, r(accepts('a'), undefined), undefined)).to.equal(false);
    expect(
      sameResolution(
        f,
        r(accepts('a'), accepts('h')),
        r(accepts('a'), { accepted: ['h'], acceptsMissing: true }),
      ),
    ).to.equal(false);
  });
});
