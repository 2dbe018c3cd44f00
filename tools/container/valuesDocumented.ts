// Every key of the chart's values.yaml is in the values table of the chart's README and of
// docs/deploy.md (tools/container/check.sh runs this). A row's first cell names keys in backticks:
// `a.b.c`; `.d` after it means `a.b.d`; `<name>` stands for any one key; a key documents everything
// under it (`resources` covers `resources.limits.memory`).
//   node tools/container/valuesDocumented.ts CHART_DIR DOC...

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const [chart, ...docs] = process.argv.slice(2);
if (!chart || docs.length === 0) throw new Error('usage: valuesDocumented.ts CHART_DIR DOC...');

function leafPaths(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length === 0)
    return [prefix];
  return Object.entries(value).flatMap(([key, child]) => leafPaths(child, [...prefix, key]));
}

/** The key patterns a Markdown table's rows document, each a list of segments. */
function documented(markdown: string): string[][] {
  const patterns: string[][] = [];
  for (const line of markdown.split('\n')) {
    const firstCell = /^\|([^|]*)\|/.exec(line)?.[1];
    if (firstCell === undefined) continue;
    let base: string[] = [];
    for (const [, token] of firstCell.matchAll(/`([^`]+)`/g)) {
      const segments = token!.startsWith('.') ? [...base.slice(0, -1), token!.slice(1)] : token!.split('.');
      base = segments;
      patterns.push(segments);
    }
  }
  return patterns;
}

const covers = (pattern: string[], path: string[]) =>
  pattern.length <= path.length && pattern.every((s, i) => s === path[i] || /^<.+>$/.test(s));

const values = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as unknown;
let missing = 0;
for (const doc of docs) {
  const patterns = documented(readFileSync(doc, 'utf8'));
  for (const path of leafPaths(values)) {
    if (patterns.some((p) => covers(p, path))) continue;
    console.log(`${doc}: values key ${path.join('.')} is not in its values table`);
    missing++;
  }
}
console.log(
  `values.yaml keys documented in ${docs.join(', ')}: ${missing === 0 ? 'all' : `${missing} missing`}`,
);
process.exitCode = missing === 0 ? 0 : 1;
