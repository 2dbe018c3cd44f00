// Authentication's cost per message, measured in interleaved pairs: a run without tokens and a run
// with them, back to back, the order alternating from pair to pair (so that a drift of the machine's
// rate over the minutes of the series falls on both sides alike). Each pair gives a ratio, with
// tokens ÷ without; the verdict comes from a confidence interval of the median ratio, not from the
// median alone.

import { median, medianInterval } from './numbers.ts';

export interface PairedShares<R> {
  /** with tokens ÷ without, one per pair, in the order measured. */
  readonly ratios: readonly number[];
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** The 95 % (or more) distribution-free interval of the median ratio; undefined with < 6 pairs. */
  readonly interval: { low: number; high: number; coverage: number } | undefined;
  /** met: the interval lies at or above `floor`; not met: below it; inconclusive: it straddles it (or no interval). */
  readonly verdict: 'met' | 'not met' | 'inconclusive';
  readonly withRuns: readonly R[];
  readonly withoutRuns: readonly R[];
}

export async function pairedShares<R extends { readonly perCpuSecond: number }>(
  pairs: number,
  floor: number,
  runOne: (tokens: boolean) => Promise<R>,
  log: (pair: number, withTokens: R, without: R) => void,
): Promise<PairedShares<R>> {
  const ratios: number[] = [];
  const withRuns: R[] = [];
  const withoutRuns: R[] = [];
  for (let i = 0; i < pairs; i++) {
    const first = i % 2 === 0 ? false : true;
    const a = await runOne(first);
    const b = await runOne(!first);
    const [withTokens, without] = first ? [a, b] : [b, a];
    withRuns.push(withTokens);
    withoutRuns.push(without);
    ratios.push(withTokens.perCpuSecond / without.perCpuSecond);
    log(i + 1, withTokens, without);
  }
  const interval = medianInterval(ratios);
  const verdict =
    interval === undefined
      ? 'inconclusive'
      : interval.low >= floor
        ? 'met'
        : interval.high < floor
          ? 'not met'
          : 'inconclusive';
  return {
    ratios,
    median: median(ratios),
    min: Math.min(...ratios),
    max: Math.max(...ratios),
    interval,
    verdict,
    withRuns,
    withoutRuns,
  };
}
