// The benchmark report as Markdown: machine, Node version, date, then one table per scenario with the
// conditions it was measured under, its goals and notes. `--write` puts it into BENCHMARKS.md between the results markers.

import { cpus, totalmem, release } from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';
import type { ScenarioResult } from './scenario.ts';

export const resultsStart = '<!-- bench:results:start -->';
export const resultsEnd = '<!-- bench:results:end -->';

export interface ScenarioOutcome {
  readonly name: string;
  readonly title: string;
  readonly result?: ScenarioResult;
  readonly error?: string;
  readonly seconds: number;
}

/** Machine and run identity. How often each figure was measured is stated beside its table. */
export function machineLine(quick: boolean): string {
  const cpu = cpus();
  return [
    `- Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Linux ${release()}`,
    `- Node ${process.version}; run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC${quick ? ' (quick smoke run: small counts, not results)' : ''}`,
  ].join('\n');
}

function table(rows: ScenarioResult['rows']): string {
  if (rows.length === 0) return '';
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const line = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [
    line(columns),
    line(columns.map(() => '---')),
    ...rows.map((r) => line(columns.map((c) => r[c] ?? ''))),
  ].join('\n');
}

export function renderReport(outcomes: readonly ScenarioOutcome[], header: string): string {
  const parts = [header];
  for (const o of outcomes) {
    parts.push(`\n### ${o.title} (\`${o.name}\`, ${Math.round(o.seconds)} s)\n`);
    if (o.error !== undefined) {
      parts.push(`Failed: ${o.error}`);
      continue;
    }
    parts.push(table(o.result?.rows ?? []));
    const conditions = o.result?.conditions ?? [];
    if (conditions.length > 0) parts.push(`\nConditions:\n\n${conditions.map((c) => `- ${c}`).join('\n')}`);
    for (const g of o.result?.goals ?? []) parts.push(`\n- Goal: ${g}`);
    for (const n of o.result?.notes ?? []) parts.push(`\n- Note: ${n}`);
  }
  return `${parts.join('\n')}\n`;
}

/** Replaces the results block of BENCHMARKS.md (or appends one). */
export function writeIntoBenchmarks(file: string, report: string): void {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = '# Benchmarks\n\n';
  }
  const block = `${resultsStart}\n${report}${resultsEnd}`;
  const start = text.indexOf(resultsStart);
  const end = text.indexOf(resultsEnd);
  text =
    start >= 0 && end > start
      ? text.slice(0, start) + block + text.slice(end + resultsEnd.length)
      : `${text}\n${block}\n`;
  writeFileSync(file, text);
}
