// The geometry of one server-rendered SVG line chart: paths in a fixed viewBox, a y scale that starts
// at zero and ends on a round number, and the time axis of its window. Pure; the template only
// places what this returns, and colours come from the stylesheet (classes, no inline style).

export const chartWidth = 480;
export const chartHeight = 140;
/** Room for the y labels on the left and the time labels below. */
const plot = { left: 40, right: 472, top: 8, bottom: 118 };

export interface ChartLine {
  readonly key: string;
  readonly values: readonly number[];
}

export interface ChartGeometry {
  /** One SVG path per line; a gap in the samples (a restart, a stalled sampler) breaks it. */
  readonly paths: { key: string; d: string }[];
  readonly yTicks: { y: string; label: string }[];
  readonly xTicks: { x: string; label: string }[];
  readonly plot: typeof plot;
}

/**
 * The smallest of 1, 2, 4, 6, 8 × 10^n at or above `max` (at least `floor`): its half, the middle
 * tick, is a whole number from 2 up, so agent counts never get a tick at 2.5 agents.
 */
export function niceCeiling(max: number, floor = 1): number {
  const target = Math.max(max, floor);
  const power = 10 ** Math.floor(Math.log10(target));
  for (const step of [1, 2, 4, 6, 8, 10]) if (step * power >= target - 1e-9) return step * power;
  return 10 * power;
}

const fixed = (n: number) => n.toFixed(1);

/** A y label: whole numbers as they are, fractions (rates) with at most two digits. */
export function tickLabel(value: number): string {
  if (Number.isInteger(value)) return value >= 10_000 ? `${value / 1000}k` : String(value);
  return String(Number(value.toFixed(2)));
}

function pathOf(
  at: readonly number[],
  values: readonly number[],
  x: (t: number) => number,
  y: (v: number) => number,
  maxGapMs: number,
): string {
  const parts: string[] = [];
  for (let i = 0; i < at.length; i++) {
    const gap = i === 0 || at[i]! - at[i - 1]! > maxGapMs;
    parts.push(`${gap ? 'M' : 'L'}${fixed(x(at[i]!))} ${fixed(y(values[i] ?? 0))}`);
  }
  return parts.join(' ');
}

/**
 * Lays out `lines` sampled at `at` over the window that ends at `end` and spans `spanMs`. Samples
 * further apart than 1.5 steps are not joined. `fractional` lines (rates) may have a ceiling below 1.
 */
export function layoutChart(input: {
  at: readonly number[];
  lines: readonly ChartLine[];
  end: number;
  spanMs: number;
  stepMs: number;
  fractional?: boolean;
}): ChartGeometry {
  const { at, lines, end, spanMs, stepMs } = input;
  const start = end - spanMs;
  const max = Math.max(0, ...lines.flatMap((l) => l.values));
  const top = niceCeiling(max, input.fractional === true ? 0.1 : 4);
  const width = plot.right - plot.left;
  const height = plot.bottom - plot.top;
  const x = (t: number) => plot.left + (Math.min(Math.max(t, start), end) - start) * (width / spanMs);
  const y = (v: number) => plot.bottom - (Math.max(0, v) / top) * height;
  const paths = lines.map((l) => ({ key: l.key, d: pathOf(at, l.values, x, y, stepMs * 1.5) }));
  const yTicks = [0, 0.5, 1].map((f) => ({ y: fixed(y(top * f)), label: tickLabel(top * f) }));
  const xTicks = [0, 0.5, 1].map((f) => ({
    x: fixed(plot.left + f * width),
    label: f === 1 ? 'now' : `−${spanLabel(spanMs * (1 - f))}`,
  }));
  return { paths, yTicks, xTicks, plot };
}

/** 3600000 → "60 min", 43200000 → "12 h". */
export function spanLabel(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  return minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}
