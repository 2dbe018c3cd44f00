// Pagination parameters of GET /api/agents (SPEC "Limits"): limit 1..1000 (default 100), offset ≥ 0
// (default 0). Only plain decimal digits are accepted, so "1e2", "+5" or "5.0" are 400s, not guesses.

export interface Page {
  readonly limit: number;
  readonly offset: number;
}

export const defaultLimit = 100;
export const maxLimit = 1000;

export type ParsedPage =
  { readonly ok: true; readonly page: Page } | { readonly ok: false; readonly error: string };

const digits = /^[0-9]{1,15}$/;

function integerParam(
  params: URLSearchParams,
  key: string,
  fallback: number,
  min: number,
  max: number,
): number | string {
  const given = params.getAll(key);
  if (given.length > 1) return `${key} may be given only once`;
  const [text] = given;
  if (text === undefined) return fallback;
  const n = digits.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`;
    return `${key} must be ${range}, got ${JSON.stringify(text)}`;
  }
  return n;
}

export function parsePage(params: URLSearchParams): ParsedPage {
  const limit = integerParam(params, 'limit', defaultLimit, 1, maxLimit);
  if (typeof limit === 'string') return { ok: false, error: limit };
  const offset = integerParam(params, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  if (typeof offset === 'string') return { ok: false, error: offset };
  return { ok: true, page: { limit, offset } };
}
