// A bar of targets by state, drawn as SVG rectangles (widths in a 0..100 viewBox: no inline style,
// CSP allows none). Finished targets come first (succeeded, failed, rolled back), then those in
// flight, those still pending, and last those the job leaves alone (skipped, cancelled). Pure.

import type { TargetState } from '../../projections/jobs/jobStore.ts';
import { targetStateLabels } from './jobLabels.ts';

export const barOrder: readonly TargetState[] = [
  'succeeded',
  'failed',
  'rolled_back',
  'in_flight',
  'pending',
  'skipped',
  'cancelled',
];

export type StateCounts = Readonly<Partial<Record<TargetState, number>>>;

export interface BarSegment {
  readonly state: TargetState;
  readonly label: string;
  readonly count: number;
  /** Left edge and width in percent of the bar, as text with three decimals. */
  readonly x: string;
  readonly width: string;
}

export interface ProgressBar {
  readonly total: number;
  /** Succeeded, failed or rolled back: targets the job is done with. */
  readonly finished: number;
  readonly segments: readonly BarSegment[];
  /** `3 succeeded, 1 in flight, 2 pending`; `no targets` for an empty bar. */
  readonly summary: string;
}

export function progressBar(counts: StateCounts): ProgressBar {
  const present = barOrder.filter((state) => (counts[state] ?? 0) > 0);
  const total = present.reduce((sum, state) => sum + (counts[state] ?? 0), 0);
  let x = 0;
  const segments = present.map((state) => {
    const count = counts[state] ?? 0;
    const width = (count / total) * 100;
    const segment = {
      state,
      label: targetStateLabels[state],
      count,
      x: x.toFixed(3),
      width: width.toFixed(3),
    };
    x += width;
    return segment;
  });
  const finished = (counts.succeeded ?? 0) + (counts.failed ?? 0) + (counts.rolled_back ?? 0);
  const summary =
    segments.length === 0
      ? 'no targets'
      : segments.map((s) => `${s.count.toLocaleString('en-US')} ${s.label.toLowerCase()}`).join(', ');
  return { total, finished, segments, summary };
}
