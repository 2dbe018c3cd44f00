import { expect } from 'chai';
import {
  parseFleetQuery,
  maxMatchers,
  type ParseOptions,
} from '../../../src/projections/filter/fleetFilter.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { agent, health, testSession } from '../../support/agentFixture.ts';

// A small fleet; each case lists which names a query selects.
const fleet: Record<string, AgentState> = {
  prodCollector: agent({
    n: 1,
    identifying: { 'service.name': 'collector', env: 'prod' },
    over: {
      health: health(true),
      availableComponents: {
        hash: 'aa',
        components: { receivers: ['otlp', 'hostmetrics'], exporters: ['otlp', 'debug'] },
      },
    },
  }),
  stagingCollector: agent({
    n: 2,
    identifying: { 'service.name': 'collector', env: 'staging' },
    over: {
      health: health(false),
      connected: false,
      availableComponents: { hash: 'bb', components: { receivers: ['otlp'], exporters: ['debug'] } },
    },
  }),
  gatewayAgent: agent({
    n: 3,
    identifying: { 'service.name': 'edge' },
    nonIdentifying: { env: 'prod', 'host.name': 'gw-1' },
    over: { session: { ...testSession, viaGateway: true } },
  }),
  shadowed: agent({ n: 4, identifying: { env: 'dev' }, nonIdentifying: { env: 'prod' } }),
  undescribed: agent({ n: 5, undescribed: true }),
  reservedAttr: agent({ n: 6, identifying: { healthy: 'yes', 'service.name': 'odd' } }),
  emptyValue: agent({ n: 7, identifying: { env: '' } }),
};

function select(query: string, options: ParseOptions = {}): string[] {
  const parsed = parseFleetQuery(new URLSearchParams(query), options);
  if (!parsed.ok) throw new Error(parsed.error);
  return Object.entries(fleet)
    .filter(([, a]) => parsed.filter.matches(a))
    .map(([name]) => name);
}

function errorOf(query: string): string {
  const parsed = parseFleetQuery(new URLSearchParams(query));
  if (parsed.ok) throw new Error(`expected ${query} to be rejected`);
  return parsed.error;
}

const all = Object.keys(fleet);

describe('parseFleetQuery', () => {
  const cases: [string, string, string[]][] = [
    ['no filter matches everyone', '', all],
    ['pagination and UI keys are not filters', 'limit=5&offset=1&sort=name&order=desc', all],
    ['exact match', 'match=env=prod', ['prodCollector', 'gatewayAgent']],
    ['identifying attributes shadow non-identifying ones', 'match=env=dev', ['shadowed']],
    ['spaces around the operator', 'match=env%20=%20prod', ['prodCollector', 'gatewayAgent']],
    ['quoted value', 'match=env="prod"', ['prodCollector', 'gatewayAgent']],
    ['empty quoted value matches an empty attribute, not a missing one', 'match=env=""', ['emptyValue']],
    [
      '!= also matches agents that lack the key',
      'match=env!=prod',
      ['stagingCollector', 'shadowed', 'undescribed', 'reservedAttr', 'emptyValue'],
    ],
    ['regex matches the full value', 'match=env=~pro', []],
    ['regex anchored at both ends', 'match=service.name=~coll.*', ['prodCollector', 'stagingCollector']],
    [
      'regex alternation is anchored as a whole',
      'match=env=~prod|dev',
      ['prodCollector', 'gatewayAgent', 'shadowed'],
    ],
    [
      'regex does not match a missing key even when it matches empty',
      'match=env=~.*',
      ['prodCollector', 'stagingCollector', 'gatewayAgent', 'shadowed', 'emptyValue'],
    ],
    [
      '!~ matches agents that lack the key',
      'match=env!~prod|staging',
      ['shadowed', 'undescribed', 'reservedAttr', 'emptyValue'],
    ],
    ['RE2 inline flags', 'match=service.name=~(?i)COLLECTOR', ['prodCollector', 'stagingCollector']],
    ['matchers combine with AND', 'match=service.name=collector&match=env=prod', ['prodCollector']],
    ['bare attribute key is an exact match', 'host.name=gw-1', ['gatewayAgent']],
    ['bare key does not match a prefix', 'host.name=gw', []],
    ['legacy attr_key + attr_value', 'attr_key=env&attr_value=staging', ['stagingCollector']],
    ['healthy=true', 'healthy=true', ['prodCollector']],
    ['healthy=false means reported unhealthy, not unknown', 'healthy=false', ['stagingCollector']],
    ['connected=false', 'connected=false', ['stagingCollector']],
    ['connected=true', 'connected=true', all.filter((n) => n !== 'stagingCollector')],
    ['via_gateway=true', 'via_gateway=true', ['gatewayAgent']],
    [
      'reserved key as query is the boolean filter, not the attribute',
      'healthy=true&match=service.name=odd',
      [],
    ],
    [
      'attr_key reaches an attribute named like a reserved key',
      'attr_key=healthy&attr_value=yes',
      ['reservedAttr'],
    ],
    [
      'a match list is the intersection',
      'match=env=~prod, connected=true',
      ['prodCollector', 'gatewayAgent'],
    ],
    ['a status field in a match list is the field', 'match=healthy=true', select('healthy=true')],
    [
      'a quoted regex then a status field',
      'match=env=~"prod.*", connected=true',
      ['prodCollector', 'gatewayAgent'],
    ],
    [
      'config_state in a match list is the field',
      'match=config_state=unmanaged',
      select('config_state=unmanaged'),
    ],
    ['booleans and matchers combine', 'connected=true&match=env=~prod', ['prodCollector', 'gatewayAgent']],
    ['a component type in any kind', 'component=otlp', ['prodCollector', 'stagingCollector']],
    ['a component of one kind', 'component=exporters/otlp', ['prodCollector']],
    ['the kind must match', 'component=receivers/debug', []],
    ['components combine with AND', 'component=hostmetrics&component=debug', ['prodCollector']],
    [
      'agents that reported no components match no component',
      'component=otlp&connected=true',
      ['prodCollector'],
    ],
  ];
  for (const [title, query, expected] of cases) {
    it(`${title}: ${query || '(empty)'}`, () => {
      expect(select(query)).to.deep.equal(expected);
    });
  }

  const errors: [string, RegExp][] = [
    ['healthy=yes', /healthy must be true or false, got "yes"/],
    ['connected=TRUE', /connected must be true or false/],
    ['via_gateway=', /via_gateway must be true or false, got ""/],
    ['healthy=true&healthy=false', /healthy may be given only once/],
    ['match=env', /no operator/],
    ['match=env=prod, healthy=yes', /healthy must be true or false, got "yes" \(at character 19\)/],
    ['match=env=prod, connected!=true', /connected takes only = .*\(at character 20\)/],
    ['match=env=prod, os="linux', /unterminated " quote \(at character 14\)/],
    ['match=config_state=lost', /config_state must be one of .*got "lost" \(at character 14\)/],
    ['match=env=~(a', /invalid regex in matcher env=~"\(a": .*missing closing \)/],
    ['match=env=~a)|(b', /invalid regex/],
    ['match=env=~a**', /invalid regex/],
    ['match=env=~(?<!a)b', /invalid regex/],
    ['attr_key=env', /attr_key and attr_value must be given together/],
    ['attr_value=prod', /attr_key and attr_value must be given together/],
    ['attr_key=&attr_value=x', /attr_key must not be empty/],
    ['component=', /component must be a component type or kind\/type/],
    ['component=receivers/', /component must be a component type or kind\/type, got "receivers\/"/],
    [`component=${'x'.repeat(257)}`, /at most 256 characters/],
    [
      Array.from({ length: 17 }, () => 'component=otlp').join('&'),
      /too many component terms: 17 given, at most 16/,
    ],
  ];
  for (const [query, message] of errors) {
    it(`rejects ${query} with a message saying what is wrong`, () => {
      expect(errorOf(query)).to.match(message);
    });
  }

  describe('limits (issue 7)', () => {
    const matchers = (n: number, form = (i: number) => `match=k${i}=v`) =>
      Array.from({ length: n }, (_, i) => form(i)).join('&');

    it(`accepts ${maxMatchers} matchers`, () => {
      expect(parseFleetQuery(new URLSearchParams(matchers(maxMatchers))).ok).to.equal(true);
    });
    it(`rejects ${maxMatchers + 1} matchers`, () => {
      expect(errorOf(matchers(maxMatchers + 1))).to.equal(
        'too many matchers: 33 given, at most 32 per request',
      );
    });
    it('counts bare keys and legacy pairs as matchers too', () => {
      const q = `${matchers(31)}&bare=1&attr_key=a&attr_value=b`;
      expect(errorOf(q)).to.match(/too many matchers: 33 given/);
    });
    it('accepts a regex of exactly 1 KiB', () => {
      expect(parseFleetQuery(new URLSearchParams({ match: `k=~${'a'.repeat(1024)}` })).ok).to.equal(true);
    });
    it('rejects a regex longer than 1 KiB (counted in UTF-8 bytes)', () => {
      expect(errorOf(new URLSearchParams({ match: `k=~${'a'.repeat(1025)}` }).toString())).to.match(
        /regex of matcher on "k" is longer than 1024 bytes/,
      );
      expect(errorOf(new URLSearchParams({ match: `k=~${'é'.repeat(513)}` }).toString())).to.match(
        /longer than 1024/,
      );
    });
    it('does not limit the length of exact-match values', () => {
      expect(parseFleetQuery(new URLSearchParams({ match: `k=${'a'.repeat(5000)}` })).ok).to.equal(true);
    });
  });

  describe('options for the web UI', () => {
    it('ignoreEmpty skips empty form fields', () => {
      expect(select('healthy=&match=&env=&connected=false', { ignoreEmpty: true })).to.deep.equal([
        'stagingCollector',
      ]);
    });
    it('ignoreKeys leaves UI parameters alone', () => {
      expect(select('page=2', { ignoreKeys: ['page'] })).to.deep.equal(all);
    });
    it('reports an empty filter so the read path can page the index directly', () => {
      const parsed = parseFleetQuery(new URLSearchParams('limit=3&sort=name'));
      expect(parsed.ok && parsed.filter.empty).to.equal(true);
    });
  });
});
