// Random configs with planted values, for the redaction property (redaction.spec.ts): a tree of
// mappings and sequences under keys drawn from secret and ordinary names, whose leaves are unique
// tokens: `zs…q` for a leaf anywhere under a secret key (or the password of a URL's userinfo),
// `nv…q` for any other (and for a collection aliased under a secret key, `zs` too). Written as YAML in every style the yaml package writes, or as JSON, with
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
  | { readonly kind: 'ref'; readonly pick: number }
  | { readonly kind: 'map'; readonly entries: readonly (readonly [string, Shape])[] }
  | { readonly kind: 'seq'; readonly items: readonly Shape[] };

const { root } = fc.letrec<{ node: Shape; root: Shape }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({
      kind: fc.constant('leaf' as const),
      form: fc.constantFrom('one' as const, 'lines' as const, 'url' as const),
    }),
    fc.record({ kind: fc.constant('ref' as const), pick: fc.nat(20) }),
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

interface Shared {
  readonly value: object;
  /** The tokens planted in it: from, to. */
  readonly from: number;
  readonly to: number;
  /** Collections it refers to (written as aliases inside it). */
  readonly inner: readonly Shared[];
}

interface Planting {
  readonly tokens: { token: string; secret: boolean }[];
  /** Collections built outside secret keys. */
  readonly shared: Shared[];
  /** Collections referred to under a secret key (YAML writes them as aliases of the first). */
  readonly aliased: Shared[];
  /** The references made inside each collection being built, innermost last. */
  readonly open: Shared[][];
}

/**
 * The shape as a value, with the tokens it planted. A `ref` reuses a collection built earlier
 * outside secret keys: the yaml package writes the second occurrence as an alias of the first.
 */
function build(shape: Shape, secret: boolean, p: Planting): unknown {
  const token = (s: boolean) => {
    const t = `${s ? 'zs' : 'nv'}${p.tokens.length}q`;
    p.tokens.push({ token: t, secret: s });
    return t;
  };
  const from = p.tokens.length;
  const collection = <T extends object>(make: () => T): T => {
    p.open.push([]);
    const value = make();
    const inner = p.open.pop()!;
    if (!secret) p.shared.push({ value, from, to: p.tokens.length, inner });
    return value;
  };
  switch (shape.kind) {
    case 'leaf':
      if (shape.form === 'one') return token(secret);
      if (shape.form === 'lines') return `${token(secret)}\n${token(secret)} ${token(secret)}`;
      return `https://${token(secret)}:${token(true)}@${token(secret)}.example:4318/v1`;
    case 'ref': {
      const target = p.shared[shape.pick % Math.max(1, p.shared.length)];
      if (target === undefined) return token(secret);
      if (secret) p.aliased.push(target);
      for (const refs of p.open) refs.push(target);
      return target.value;
    }
    case 'seq':
      return collection(() => shape.items.map((item) => build(item, secret, p)));
    case 'map':
      return collection(() =>
        Object.fromEntries(
          shape.entries.map(([key, value], i) => [
            `${key}_${i}`,
            build(value, secret || secretKeys.includes(key), p),
          ]),
        ),
      );
  }
}

/** Tokens of a collection aliased under a secret key become secret, and those of its own aliases. */
function hideAliased(p: Planting): void {
  const seen = new Set<Shared>();
  const hide = (c: Shared) => {
    if (seen.has(c)) return;
    seen.add(c);
    for (let i = c.from; i < c.to; i++) p.tokens[i]!.secret = true;
    c.inner.forEach(hide);
  };
  p.aliased.forEach(hide);
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
    const p: Planting = { tokens: [], shared: [], aliased: [], open: [] };
    const value = build(shape, false, p);
    const json = 'json' in style;
    // JSON writes a shared collection twice: the copy outside secret keys is shown, as it should be.
    if (!json) hideAliased(p);
    const written = json ? JSON.stringify(value, null, style.json) : stringify(value, style);
    // Double-quoted keys may spell their first letter as an escape (`"\u0070assword_0":`).
    const text = style.escapeKeys
      ? written.replace(
          /"([A-Za-z])([\w-]*)":/g,
          (_all, first: string, rest: string) =>
            `"\\u${first.charCodeAt(0).toString(16).padStart(4, '0')}${rest}":`,
        )
      : written;
    const secrets = p.tokens.filter((t) => t.secret).map((t) => t.token);
    return { text, secrets, kept: p.tokens.filter((t) => !t.secret).map((t) => t.token) };
  })
  .filter(({ text }) => parseDocument(text, { uniqueKeys: false }).errors.length === 0);
