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
 * charts are then empty, like those of a service that has just started.
 */
export function historyLocals(read: HistoryRead | undefined, now: number, window: HistoryWindowName) {
  const spec = historyWindows.find((w) => w.name === window)!;
  const spanMs = spec.stepMs * spec.points;
  const at = read?.at ?? [];
  const charts: ChartLocals[] = historyCharts.map((chart) => {
    const lines = chart.series.map((s) => ({
      key: s.key,
      values: read?.columns[historySeries.indexOf(s.key)] ?? [],
    }));
    const legend = chart.series.map((s, i) => {
      const latest = lines[i]!.values.at(-1);
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
    width: chartWidth,
    height: chartHeight,
    charts,
  };
}

const round = (v: number) => (Number.isInteger(v) ? v : Number(v.toFixed(2)));
