// The fleet's history in memory, at two resolutions with a fixed footprint: the last hour at one
// sample per 10 s and the last 24 hours at one per 5 min (the mean of 30 fine samples). Nothing is
// persisted: a replica that restarts starts its history afresh (docs/ui.md "Fleet over time").

import { addToBucket, emptyBucket, takeMean } from './downsample.ts';
import { historySeries } from './fleetSample.ts';
import { createSeriesRing, ringBytes, type SeriesRing } from './seriesRing.ts';

export type HistoryWindowName = '1h' | '24h';

export interface HistoryWindow {
  readonly name: HistoryWindowName;
  /** Time between two samples of this window. */
  readonly stepMs: number;
  /** Samples it holds: stepMs × points is the time it spans. */
  readonly points: number;
}

export const fineWindow: HistoryWindow = { name: '1h', stepMs: 10_000, points: 360 };
export const coarseWindow: HistoryWindow = { name: '24h', stepMs: 300_000, points: 288 };
export const historyWindows: readonly HistoryWindow[] = [fineWindow, coarseWindow];
const finePerCoarse = coarseWindow.stepMs / fineWindow.stepMs;

/** What a window holds, oldest first; `columns[i]` is the series `historySeries[i]`. */
export interface HistoryRead {
  readonly window: HistoryWindow;
  readonly at: number[];
  readonly columns: number[][];
}

export interface FleetHistory {
  /** Records one fine sample taken at `at` (the sampler calls it every fineWindow.stepMs). */
  record(at: number, sample: ArrayLike<number>): void;
  read(window: HistoryWindowName): HistoryRead;
}

/** Bytes held by the two rings and the bucket under way, whatever the fleet's size. */
export const historyBytes =
  ringBytes(fineWindow.points, historySeries.length) +
  ringBytes(coarseWindow.points, historySeries.length) +
  historySeries.length * 8;

export function createFleetHistory(): FleetHistory {
  const width = historySeries.length;
  const rings: Record<HistoryWindowName, SeriesRing> = {
    '1h': createSeriesRing(fineWindow.points, width),
    '24h': createSeriesRing(coarseWindow.points, width),
  };
  const bucket = emptyBucket(width);
  return {
    record(at, sample) {
      rings['1h'].push(at, sample);
      addToBucket(bucket, sample);
      if (bucket.count === finePerCoarse) rings['24h'].push(at, takeMean(bucket));
    },
    read(name) {
      const window = name === '1h' ? fineWindow : coarseWindow;
      return { window, ...rings[name].read() };
    },
  };
}
