import { expect } from 'chai';
import { parseMatcher } from '../../../src/projections/filter/matcher.ts';
import {
  activeFilters,
  addAttributeHref,
  exactMatcher,
  pageHref,
  parseFleetRequest,
  pollUrl,
  sortHref,
} from '../../../src/web/pages/fleetRequest.ts';

import { agent, uidOf } from '../../support/agentFixture.ts';

const paramsOf = (href: string) => new URLSearchParams(href.slice(href.indexOf('?') + 1));

describe('fleet page query', () => {
  it('drops empty form fields and parses the rest with the API filter parser', () => {
    const req = parseFleetRequest('healthy=&connected=true&match=&match=env%3Dprod&sort=name&order=desc');
    expect(req.error).to.equal(undefined);
    expect(req.params.toString()).to.equal('connected=true&match=env%3Dprod&sort=name&order=desc');
    expect(req.filter?.terms).to.have.length(2);
    expect(req.sort).to.deep.equal({ key: 'name', order: 'desc' });
  });

  it('filters by config_state with the state each agent is given, and keeps it in poll URLs', () => {
    const states = new Map([
      [uidOf(1), 'failed'],
      [uidOf(2), 'applied'],
    ] as const);
    const req = parseFleetRequest('config_state=failed&config_state=', {
      configStateOf: (a) => states.get(a.uid) ?? 'unmanaged',
    });
    expect(req.error).to.equal(undefined);
    expect([1, 2, 3].map((n) => req.filter?.matches(agent({ n })))).to.deep.equal([true, false, false]);
    expect(pollUrl(req)).to.equal('/partials/agents?config_state=failed');
    expect(parseFleetRequest('config_state=lost').error).to.match(/config_state must be one or more of/);
  });

  it('reports invalid filters, paging and sort values as messages', () => {
    expect(parseFleetRequest('healthy=maybe').error).to.match(/healthy must be true or false/);
    expect(parseFleetRequest('match=env%3D~(').error).to.be.a('string');
    expect(parseFleetRequest('offset=-1').error).to.match(/offset/);
    expect(parseFleetRequest('sort=color').error).to.match(/sort must be one of/);
    expect(parseFleetRequest('order=up').error).to.match(/order must be asc or desc/);
  });

  it('keeps the whole query, sort and page included, in the poll URL', () => {
    const req = parseFleetRequest('connected=true&match=a%3Db&sort=last_seen&order=desc&offset=100&limit=50');
    expect(pollUrl(req)).to.equal(
      '/partials/agents?connected=true&match=a%3Db&sort=last_seen&order=desc&offset=100&limit=50',
    );
    expect(pollUrl(parseFleetRequest(''))).to.equal('/partials/agents');
  });

  it('keeps filters in sort links, flips the current order and restarts at the first page', () => {
    const req = parseFleetRequest('healthy=true&sort=name&order=asc&offset=100');
    expect(paramsOf(sortHref(req, 'name')).toString()).to.equal('healthy=true&sort=name&order=desc');
    expect(paramsOf(sortHref(req, 'last_seen')).get('order')).to.equal('desc');
    expect(paramsOf(sortHref(req, 'version')).get('order')).to.equal('asc');
  });

  it('keeps filters and sort in pagination links', () => {
    const req = parseFleetRequest('healthy=true&sort=name&order=asc');
    expect(pageHref(req, 200)).to.equal('/?healthy=true&sort=name&order=asc&offset=200');
    expect(pageHref(parseFleetRequest('offset=100'), 0)).to.equal('/');
  });

  it('writes exact matchers that the API parser reads back to the same key and value', () => {
    for (const value of ['prod', ' padded ', '', '"quoted"', "'single'", 'a=b', 'x!~y']) {
      const parsed = parseMatcher(exactMatcher('env', value));
      expect(parsed.ok && parsed.value).to.deep.equal({ key: 'env', op: '=', value });
    }
  });

  it('adds an attribute chip as a match filter, or as attr_key/attr_value when the key has an operator in it', () => {
    const req = parseFleetRequest('sort=name&offset=100');
    expect(paramsOf(addAttributeHref(req, 'os.type', 'linux')).toString()).to.equal(
      'sort=name&match=os.type%3Dlinux',
    );
    const legacy = paramsOf(addAttributeHref(req, 'a=b', 'c'));
    expect(legacy.getAll('attr_key')).to.deep.equal(['a=b']);
    expect(legacy.getAll('attr_value')).to.deep.equal(['c']);
  });

  it('lists each attribute filter with a link that removes only that one', () => {
    const req = parseFleetRequest('match=a%3D1&match=b%3D2&team=core&attr_key=k&attr_value=v&healthy=true');
    const filters = activeFilters(req);
    expect(filters.map((f) => f.label)).to.deep.equal(['a=1', 'b=2', 'team=core', 'k=v']);
    expect(paramsOf(filters[0]!.removeHref).toString()).to.equal(
      'match=b%3D2&team=core&attr_key=k&attr_value=v&healthy=true',
    );
    expect(paramsOf(filters[3]!.removeHref).toString()).to.equal(
      'match=a%3D1&match=b%3D2&team=core&healthy=true',
    );
  });
});
