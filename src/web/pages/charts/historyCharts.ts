// The fleet-over-time charts of the status and fleet pages (docs/ui.md "Fleet over time"): which
// series go on which chart, and the locals of views/partials/history.pug for one window.

import {
  historyWindows,
  type HistoryRead,
  type HistoryWindowName,
} from '../../../projections/history/fleetHistory.ts';
import { historySeries, type HistorySeries } from '../../../projections/history/fleetSample.ts';
import { countedConfigStates } from '../../../projections/remoteConfig/configState.ts';
import { configStateLabels } from '../configStateLabels.ts';
import {
  chartHeight,
  chartWidth,
  layoutChart,
  spanLabel,
  tickLabel,
  type ChartGeometry,
} from './lineChart.ts';

interface ChartSpec {
  readonly id: string;
  readonly title: string;
  readonly series: readonly { key: HistorySeries; label: string }[];
  readonly fractional?: boolean;
}

export const historyCharts: readonly ChartSpec[] = [
  {
    id: 'fleet',
    title: 'Fleet size',
    series: [
      { key: 'size', label: 'Registered' },
      { key: 'connected', label: 'Connected' },
    ],
  },
  {
    id: 'health',
    title: 'Health',
    series: [
      { key: 'healthy', label: 'Healthy' },
      { key: 'unhealthy', label: 'Unhealthy' },
      { key: 'unknown', label: 'Unknown' },
    ],
  },
  {
    id: 'config',
    title: 'Config states',
    series: countedConfigStates.map((key) => ({ key, label: configStateLabels[key] })),
  },
  {
    id: 'messages',
    title: 'Messages per second',
    series: [{ key: 'messages_per_second', label: 'Messages/s' }],
    fractional: true,
  },
  {
    id: 'errors',
    title: 'Errors per second',
    series: [{ key: 'errors_per_second', label: 'Errors/s' }],
    fractional: true,
  },
];

export interface ChartLocals extends ChartGeometry {
  readonly id: string;
  readonly title: string;
  /** What a screen reader hears instead of the picture: each series' latest value. */
  readonly summary: string;
  readonly legend: { key: string; label: string; latest: string }[];
}

/** `?window=` of the status page and of /partials/history: `1h` unless it names another window. */
export function parseHistoryWindow(value: string | string[] | undefined): HistoryWindowName {
  return value === '24h' ? '24h' : '1h';
}

/**
 * `read` is undefined when the service keeps no history (a page built without a sampler); the
 * charts are then empty, like those of a service that has just started. `fine` is the newest
 * samples (the 1 h window): a legend shows the latest sample, never a coarse window's mean, so it
 * agrees with the live counts (issue 30).
 */
export function historyLocals(
  read: HistoryRead | undefined,
  now: number,
  window: HistoryWindowName,
  fine: HistoryRead | undefined = read,
) {
  const spec = historyWindows.find((w) => w.name === window)!;
  const spanMs = spec.stepMs * spec.points;
  const at = read?.at ?? [];
  const newest = (key: HistorySeries) =>
    (fine?.columns[historySeries.indexOf(key)] ?? []).at(-1) ??
    (read?.columns[historySeries.indexOf(key)] ?? []).at(-1);
  const charts: ChartLocals[] = historyCharts.map((chart) => {
    const lines = chart.series.map((s) => ({
      key: s.key,
      values: read?.columns[historySeries.indexOf(s.key)] ?? [],
    }));
    const legend = chart.series.map((s) => {
      const latest = newest(s.key);
      return { key: s.key, label: s.label, latest: latest === undefined ? '—' : tickLabel(round(latest)) };
    });
    const geometry = layoutChart({
      at,
      lines,
      end: now,
      spanMs,
      stepMs: spec.stepMs,
      fractional: chart.fractional ?? false,
    });
    const summary = `${chart.title}, last ${spanLabel(spanMs)}: ${legend.map((l) => `${l.label} ${l.latest}`).join(', ')}`;
    return { id: chart.id, title: chart.title, summary, legend, ...geometry };
  });
  return {
    window,
    windows: historyWindows.map((w) => ({ name: w.name, label: `Last ${spanLabel(w.stepMs * w.points)}` })),
    stepLabel: spec.stepMs < 60_000 ? `${spec.stepMs / 1000} s` : spanLabel(spec.stepMs),
    empty: at.length === 0,
    coverage: coverageText(at[0] ?? fine?.at[0], now, spanMs, spec.stepMs),
    width: chartWidth,
    height: chartHeight,
    charts,
  };
}

/** How much of the window the replica has seen: a young service's 24 h tab is mostly empty. */
function coverageText(first: number | undefined, now: number, spanMs: number, stepMs: number): string {
  if (first === undefined) return `No history yet of the last ${spanLabel(spanMs)}.`;
  const heldMs = Math.max(0, now - first);
  if (heldMs >= spanMs - stepMs) return `History of the whole last ${spanLabel(spanMs)}.`;
  const held = heldMs < 60_000 ? `${Math.max(1, Math.round(heldMs / 1000))} s` : spanLabel(heldMs);
  return `History of ${held} of the last ${spanLabel(spanMs)}: this replica started then.`;
}

const round = (v: number) => (Number.isInteger(v) ? v : Number(v.toFixed(2)));
