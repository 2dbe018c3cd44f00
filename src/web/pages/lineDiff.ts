// A line diff of two config bodies as rows a template can render without inline style: hunks of
// changed lines with a little context, each line with its number in the old and the new body. The
// comparison itself is jsdiff's (Myers); bodies that differ too much to compare cheaply are refused
// rather than computed, so one page view cannot hold the event loop for long. Pure.

import { createRequire } from 'node:module';
import type * as Jsdiff from 'diff';

/** jsdiff is loaded at the first diff shown, not with the service (most never show one). */
const load = createRequire(import.meta.url);
let jsdiff: typeof Jsdiff | undefined;

export type DiffRowKind = 'hunk' | 'add' | 'del' | 'ctx' | 'note';

export interface DiffRow {
  readonly kind: DiffRowKind;
  /** Line number in the old body; null on added lines, hunk headers and notes. */
  readonly oldNo: number | null;
  /** Line number in the new body; null on removed lines, hunk headers and notes. */
  readonly newNo: number | null;
  readonly text: string;
}

export type LineDiff =
  | { readonly ok: true; readonly rows: readonly DiffRow[]; readonly added: number; readonly removed: number }
  | { readonly ok: false; readonly reason: string };

export interface LineDiffOptions {
  /** Unchanged lines shown around each change. */
  readonly context?: number;
  /** Give up past this many inserted plus deleted lines. */
  readonly maxEditLength?: number;
  /** Give up after this many milliseconds. */
  readonly timeoutMs?: number;
}

export const defaultDiffLimits = { context: 3, maxEditLength: 2000, timeoutMs: 250 } as const;

function hunkRows(hunk: {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}): DiffRow[] {
  const rows: DiffRow[] = [
    {
      kind: 'hunk',
      oldNo: null,
      newNo: null,
      text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    },
  ];
  let oldNo = hunk.oldStart;
  let newNo = hunk.newStart;
  for (const line of hunk.lines) {
    const text = line.slice(1);
    switch (line[0]) {
      case '+':
        rows.push({ kind: 'add', oldNo: null, newNo: newNo++, text });
        break;
      case '-':
        rows.push({ kind: 'del', oldNo: oldNo++, newNo: null, text });
        break;
      case '\\':
        rows.push({ kind: 'note', oldNo: null, newNo: null, text: text.trim() });
        break;
      default:
        rows.push({ kind: 'ctx', oldNo: oldNo++, newNo: newNo++, text });
    }
  }
  return rows;
}

export function lineDiff(from: string, to: string, options: LineDiffOptions = {}): LineDiff {
  const limits = { ...defaultDiffLimits, ...options };
  jsdiff ??= load('diff') as typeof Jsdiff;
  const patch = jsdiff.structuredPatch('', '', from, to, undefined, undefined, {
    context: limits.context,
    maxEditLength: limits.maxEditLength,
    timeout: limits.timeoutMs,
  });
  if (patch === undefined)
    return {
      ok: false,
      reason: `The revisions differ in more than ${limits.maxEditLength} lines (or took too long to compare); compare their bodies from the API instead.`,
    };
  const rows = patch.hunks.flatMap(hunkRows);
  return {
    ok: true,
    rows,
    added: rows.filter((r) => r.kind === 'add').length,
    removed: rows.filter((r) => r.kind === 'del').length,
  };
}
