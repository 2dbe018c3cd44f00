// Small statistics for benchmark results.

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
}

export const round = (n: number, digits = 0): number => Math.round(n * 10 ** digits) / 10 ** digits;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `everyMs` until it holds or `timeoutMs` passes; returns whether it held. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 20,
): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  while (performance.now() < end) {
    if (await check()) return true;
    await sleep(everyMs);
  }
  return check();
}

/**
 * A distribution-free confidence interval for the median of `values` (order statistics of the
 * binomial sign test): the widest k with P(Binomial(n, ½) < k) ≤ (1 − confidence) / 2 gives
 * [x(k), x(n + 1 − k)]. Returns the interval and its exact coverage, or undefined when n is too
 * small for any interval to reach `confidence` (fewer than 6 values for 95 %).
 */
export function medianInterval(
  values: readonly number[],
  confidence = 0.95,
): { low: number; high: number; coverage: number } | undefined {
  const s = [...values].sort((a, b) => a - b);
  const n = s.length;
  const tail = (1 - confidence) / 2;
  // P(B ≤ j) for B ~ Binomial(n, ½), accumulated term by term.
  let term = 0.5 ** n;
  let below = 0; // P(B < k) for the k being tried
  let k = 0;
  for (let j = 0; j < n / 2; j++) {
    if (below + term > tail) break;
    below += term;
    k = j + 1;
    term = (term * (n - j)) / (j + 1);
  }
  if (k === 0) return undefined;
  return { low: s[k - 1]!, high: s[n - k]!, coverage: 1 - 2 * below };
}
