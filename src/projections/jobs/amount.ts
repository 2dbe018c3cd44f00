// Counts and shares of a job's targets, as action_config writes them: 25 or "10%". Pure.

export type Amount = { readonly count: number } | { readonly percent: number };

/** 25, "25" or "10%", "12.5%"; undefined for anything else. */
export function parseAmount(value: unknown): Amount | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? { count: value } : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(text);
  if (percent !== null) {
    const p = Number(percent[1]);
    return p <= 100 ? { percent: p } : undefined;
  }
  return /^\d+$/.test(text) ? { count: Number(text) } : undefined;
}

/** The amount for `total` targets: a share rounds up (10% of 5 is 1), never beyond the total. */
export function resolveAmount(amount: Amount, total: number): number {
  const n = 'count' in amount ? amount.count : Math.ceil((total * amount.percent) / 100 - 1e-9);
  return Math.min(Math.max(0, n), total);
}

/**
 * A gate's limit among `total` targets reached: a share rounds DOWN (10% of 9 is 0, so the first
 * failure trips; docs/jobs.md "Gates"), so a share never lets through more than it names.
 */
export function resolveLimit(amount: Amount, total: number): number {
  const n = 'count' in amount ? amount.count : Math.floor((total * amount.percent) / 100 + 1e-9);
  return Math.min(Math.max(0, n), total);
}

export const formatAmount = (amount: Amount): string =>
  'count' in amount ? String(amount.count) : `${amount.percent}%`;
