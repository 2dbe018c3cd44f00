// Arbitraries for the JSON API fuzz (jsonApi.spec.ts): a request is a method, a path built from the
// API's route templates with valid, random and hostile parameters, a query string, headers of every
// kind of caller (and of browsers, forms and liars), and a body that is valid, mutated, random JSON,
// deeply nested, or not JSON at all.

import fc from 'fast-check';

export const requestsPerRun = 5;

export interface FuzzTargets {
  readonly configs: string[];
  readonly jobs: string[];
  readonly tokens: { readonly admin: string; readonly viewer: string };
}

export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string | undefined;
}

const templates = [
  '/api/agents',
  '/api/agents/:id',
  '/api/attributes',
  '/api/attributes/values',
  '/api/status',
  '/api/configs',
  '/api/configs/preview',
  '/api/configs/:name',
  '/api/configs/:name/agents',
  '/api/configs/:name/revisions',
  '/api/configs/:name/revisions/:revision',
  '/api/configs/:name/revisions/:revision/restore',
  '/api/jobs',
  '/api/jobs/:id',
  '/api/jobs/:id/arm',
  '/api/jobs/:id/pause',
  '/api/jobs/:id/resume',
  '/api/jobs/:id/cancel',
  '/api/jobs/:id/rollback',
  '/api/jobs/:id/promote',
  '/api/nowhere',
];
const queryKeys = [
  'filter',
  'q',
  'limit',
  'cursor',
  'sort',
  'order',
  'key',
  'from',
  'to',
  'config_state',
  'status',
  'healthy',
  'page_size',
];

const hostile = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '..',
    '%2e%2e',
    '%00',
    '-1',
    '0',
    '99999999999999999999',
    '1e9',
    'NaN',
    'a'.repeat(300),
    '{',
    '"',
  ),
);
const enc = (s: string) => encodeURIComponent(s);

function pathOf(targets: FuzzTargets): fc.Arbitrary<string> {
  const name = fc.oneof(fc.constantFrom(...targets.configs, 'missing'), hostile.map(enc));
  const id = fc.oneof(fc.constant(targets.jobs[0] ?? 'x'), fc.uuid(), hostile.map(enc));
  const revision = fc.oneof(fc.integer({ min: -2, max: 5 }).map(String), hostile.map(enc));
  return fc
    .tuple(fc.constantFrom(...templates), name, id, revision)
    .map(([t, n, i, r]) => t.replace(':name', n).replace(':id', i).replace(':revision', r));
}

const selector = fc.oneof(
  fc.constantFrom(
    'env=prod',
    'service.name=~".*"',
    'a!=b, c=~"(a+)+$"',
    '',
    '==',
    'x=~"[',
    'k=~"' + 'a*'.repeat(200) + '"',
  ),
  fc.string({ maxLength: 60 }),
);
const queryValue = fc.oneof(selector, hostile, fc.integer().map(String));
const query = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...queryKeys), fc.string({ maxLength: 8 })), queryValue), {
    maxLength: 4,
  })
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')}`));

const deep = fc.integer({ min: 1, max: 3000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`);
const validBodies = fc.oneof(
  fc.record(
    {
      name: fc.oneof(fc.constantFrom('fuzzed', 'base', 'nul\u0000'), fc.string({ maxLength: 70 })),
      selector,
      body: fc.oneof(
        fc.constantFrom('a: 1\n', '{"a":1}', 'password: x\n', '[[[[', ': :'),
        fc.string({ maxLength: 200 }),
      ),
      content_type: fc.constantFrom('text/yaml', 'application/json', 'text/plain', 'x', '', 'a/b; c=d'),
      enabled: fc.oneof(fc.boolean(), fc.constant('yes')),
      draft: fc.boolean(),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      filter: selector,
      action: fc.constantFrom('restart', 'config_rollout', 'nope', ''),
      submitted_by: fc.oneof(fc.string({ maxLength: 20 }), fc.constant('nul\u0000')),
      action_config: fc.oneof(
        fc.object(),
        fc.jsonValue(),
        fc.record(
          {
            config: fc.constant('base'),
            revision: fc.integer(),
            stages: fc.array(fc.oneof(fc.integer(), fc.constantFrom('50%', '100%', '-1%', 'x'))),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  ),
  fc.record({ reason: fc.string({ maxLength: 40 }), expected_revision: fc.integer() }, { requiredKeys: [] }),
);
/** A valid-looking body, serialized and then cut or with one character changed. */
const mutated = fc.tuple(validBodies, fc.nat(), fc.string({ maxLength: 2 })).map(([v, at, s]) => {
  const text = JSON.stringify(v);
  const i = at % (text.length + 1);
  return text.slice(0, i) + s + text.slice(i + 1);
});
const body = fc.oneof(
  { weight: 4, arbitrary: validBodies.map((v) => JSON.stringify(v)) },
  { weight: 3, arbitrary: mutated },
  { weight: 2, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

function headersOf(targets: FuzzTargets) {
  return fc
    .record({
      auth: fc.constantFrom('admin', 'viewer', 'none', 'garbage', 'basic'),
      type: fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
        '',
        'application/merge-patch+json',
      ),
      site: fc.constantFrom('', 'same-origin', 'cross-site', 'none'),
      origin: fc.constantFrom('', 'https://evil.example', 'null'),
      ifMatch: fc.oneof(fc.constant(''), fc.constantFrom('"1"', '*', 'W/"x"'), fc.string({ maxLength: 10 })),
    })
    .map(({ auth, type, site, origin, ifMatch }) => {
      const h: Record<string, string> = {};
      if (auth === 'admin') h.Authorization = `Bearer ${targets.tokens.admin}`;
      if (auth === 'viewer') h.Authorization = `Bearer ${targets.tokens.viewer}`;
      if (auth === 'garbage') h.Authorization = 'Bearer nope';
      if (auth === 'basic') h.Authorization = 'Basic YTpi';
      if (type !== '') h['Content-Type'] = type;
      if (site !== '') h['Sec-Fetch-Site'] = site;
      if (origin !== '') h.Origin = origin;
      if (ifMatch !== '' && /^[\x21-\x7e]*$/.test(ifMatch)) h['If-Match'] = ifMatch;
      return h;
    });
}

export function apiRequest(targets: FuzzTargets): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.constantFrom('GET', 'GET', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
      path: pathOf(targets),
      query,
      headers: headersOf(targets),
      body,
    })
    .map(({ method, path, query: q, headers, body: b }) => ({
      method,
      path: `${path}${q}`,
      headers,
      body: method === 'GET' || method === 'HEAD' ? undefined : b,
    }));
}
