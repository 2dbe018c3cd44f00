// Random configs with planted values, for the redaction property (redaction.spec.ts): a tree of
// mappings and sequences under keys drawn from secret and ordinary names, whose leaves are unique
// tokens: `zs…q` for a leaf anywhere under a secret key (or the password of a URL's userinfo),
// `nv…q` for any other. Written as YAML in every style the yaml package writes, or as JSON, with
// quoted keys spelled with an escape or not.

import fc from 'fast-check';
import { parseDocument, stringify } from 'yaml';

export const secretKeys = [
  'password',
  'token',
  'client_secret',
  'x-api-key',
  'Authorization',
  'key_pem',
  'private_key',
  'credentials',
  'apiKey',
  'tokens',
  'secret',
];
export const ordinaryKeys = [
  'endpoint',
  'receivers',
  'otlp',
  'exporters',
  'timeout',
  'name',
  'scheme',
  'filename',
  'bearertokenauth',
  'keyspace',
  'key',
  'headers',
  'passthrough',
  'tls_settings',
  'tokenizer',
];

type Shape =
  | { readonly kind: 'leaf'; readonly form: 'one' | 'lines' | 'url' }
  | { readonly kind: 'map'; readonly entries: readonly (readonly [string, Shape])[] }
  | { readonly kind: 'seq'; readonly items: readonly Shape[] };

const { root } = fc.letrec<{ node: Shape; root: Shape }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({
      kind: fc.constant('leaf' as const),
      form: fc.constantFrom('one' as const, 'lines' as const, 'url' as const),
    }),
    tie('root'),
    fc.record({ kind: fc.constant('seq' as const), items: fc.array(tie('node'), { maxLength: 4 }) }),
  ),
  root: fc.record({
    kind: fc.constant('map' as const),
    entries: fc.array(fc.tuple(fc.constantFrom(...secretKeys, ...ordinaryKeys), tie('node')), {
      maxLength: 5,
    }),
  }),
}));

export interface Planted {
  readonly text: string;
  readonly secrets: readonly string[];
  readonly kept: readonly string[];
}

/** The shape as a value, with the tokens it planted. */
function build(shape: Shape, secret: boolean, planted: { secrets: string[]; kept: string[] }): unknown {
  const token = (s: boolean) => {
    const t = `${s ? 'zs' : 'nv'}${planted.secrets.length + planted.kept.length}q`;
    (s ? planted.secrets : planted.kept).push(t);
    return t;
  };
  switch (shape.kind) {
    case 'leaf':
      if (shape.form === 'one') return token(secret);
      if (shape.form === 'lines') return `${token(secret)}\n${token(secret)} ${token(secret)}`;
      return `https://${token(secret)}:${token(true)}@${token(secret)}.example:4318/v1`;
    case 'seq':
      return shape.items.map((item) => build(item, secret, planted));
    case 'map':
      return Object.fromEntries(
        shape.entries.map(([key, value], i) => [
          `${key}_${i}`,
          build(value, secret || secretKeys.includes(key), planted),
        ]),
      );
  }
}

const format = fc.oneof(
  fc.record({ json: fc.constantFrom(0, 2, '\t'), escapeKeys: fc.boolean() }),
  fc.record({
    defaultStringType: fc.constantFrom(
      'PLAIN' as const,
      'QUOTE_DOUBLE' as const,
      'QUOTE_SINGLE' as const,
      'BLOCK_LITERAL' as const,
      'BLOCK_FOLDED' as const,
    ),
    defaultKeyType: fc.constantFrom(null, 'PLAIN' as const, 'QUOTE_DOUBLE' as const),
    collectionStyle: fc.constantFrom('any' as const, 'block' as const, 'flow' as const),
    indentSeq: fc.boolean(),
    lineWidth: fc.constantFrom(0, 20, 80),
    escapeKeys: fc.boolean(),
  }),
);

// The yaml package writes a few shapes it does not read back (an empty flow sequence under
// `collectionStyle: 'block'` without `indentSeq`): those are not configs, and are left out.
export const plantedConfig: fc.Arbitrary<Planted> = fc
  .tuple(root, format)
  .map(([shape, style]) => {
    const planted = { secrets: [] as string[], kept: [] as string[] };
    const value = build(shape, false, planted);
    const written = 'json' in style ? JSON.stringify(value, null, style.json) : stringify(value, style);
    // Double-quoted keys may spell their first letter as an escape (`"\u0070assword_0":`).
    const text = style.escapeKeys
      ? written.replace(
          /"([A-Za-z])([\w-]*)":/g,
          (_all, first: string, rest: string) =>
            `"\\u${first.charCodeAt(0).toString(16).padStart(4, '0')}${rest}":`,
        )
      : written;
    return { text, ...planted };
  })
  .filter(({ text }) => parseDocument(text, { uniqueKeys: false }).errors.length === 0);
