// The fleet page's query string: the API's filter language (parsed by exactly the API's parser, SPEC
// UI rule 3), the API's paging, and the UI-only `sort`/`order`. Also builds every link of the page
// from the current query, so sort headers, pagination, chips and poll URLs keep the rest of it.

import {
  parseFleetQuery,
  reservedQueryKeys,
  type FilterContext,
  type FleetFilter,
} from '../../projections/filter/fleetFilter.ts';
import { splitMatcherList } from '../../projections/filter/matcherList.ts';
import { parsePage, type Page } from '../query/page.ts';
import { defaultSort, isSortKey, type Sort, type SortKey } from './sortAgents.ts';

export interface FleetRequest {
  /** The query without empty values (HTML forms submit "any" selects and blank inputs as ""). */
  readonly params: URLSearchParams;
  readonly filter: FleetFilter | undefined;
  readonly page: Page;
  readonly sort: Sort;
  /** Why the query was rejected; the page shows it instead of a table. */
  readonly error: string | undefined;
  /** The matcher list the error is in, split at the character it points at. */
  readonly errorPoint?: ErrorPoint;
}

export interface ErrorPoint {
  readonly before: string;
  readonly at: string;
  readonly after: string;
}

/** `text` split around character `at`; past the end (a missing closing quote) points at a blank. */
export function errorPoint(text: string, at: number): ErrorPoint {
  return { before: text.slice(0, at), at: text[at] ?? ' ', after: text.slice(at + 1) };
}

export interface ActiveFilter {
  readonly label: string;
  readonly removeHref: string;
}

const fallbackPage: Page = { limit: 100, offset: 0 };

function parseSort(params: URLSearchParams): Sort | string {
  const sort = params.getAll('sort');
  const order = params.getAll('order');
  if (sort.length > 1 || order.length > 1) return 'sort and order may be given only once';
  const key = sort[0] ?? defaultSort.key;
  if (!isSortKey(key))
    return `sort must be one of status, name, version, via, transport, last_seen, instance; got ${JSON.stringify(key)}`;
  const dir = order[0] ?? 'asc';
  if (dir !== 'asc' && dir !== 'desc') return `order must be asc or desc, got ${JSON.stringify(dir)}`;
  return { key, order: dir };
}

/** `context` gives what filters need beyond the agent record (config_state needs each agent's state). */
export function parseFleetRequest(search: string, context: FilterContext = {}): FleetRequest {
  const params = new URLSearchParams();
  for (const [k, v] of new URLSearchParams(search)) if (v !== '') params.append(k, v);
  const sort = parseSort(params);
  const page = parsePage(params);
  const parsed = parseFleetQuery(params, { ...context, ignoreEmpty: true });
  const error = !parsed.ok
    ? parsed.error
    : !page.ok
      ? page.error
      : typeof sort === 'string'
        ? sort
        : undefined;
  const point =
    !parsed.ok && parsed.at !== undefined && parsed.source !== undefined
      ? { errorPoint: errorPoint(parsed.source, parsed.at) }
      : {};
  return {
    ...point,
    params,
    filter: parsed.ok ? parsed.filter : undefined,
    page: page.ok ? page.page : fallbackPage,
    sort: typeof sort === 'string' ? defaultSort : sort,
    error,
  };
}

export function queryString(params: URLSearchParams): string {
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

function edited(params: URLSearchParams, edit: (p: URLSearchParams) => void): string {
  const copy = new URLSearchParams(params);
  edit(copy);
  return `/${queryString(copy)}`;
}

/** A new filter or sort starts again at the first page. */
const firstPage = (p: URLSearchParams): void => p.delete('offset');

export const pollUrl = (req: FleetRequest): string => `/partials/agents${queryString(req.params)}`;

/** Clicking the current sort column flips its order; a new column starts ascending (last seen: newest first). */
export function sortHref(req: FleetRequest, key: SortKey): string {
  const order =
    req.sort.key === key ? (req.sort.order === 'asc' ? 'desc' : 'asc') : key === 'last_seen' ? 'desc' : 'asc';
  return edited(req.params, (p) => {
    firstPage(p);
    p.set('sort', key);
    p.set('order', order);
  });
}

export function pageHref(req: FleetRequest, offset: number): string {
  return edited(req.params, (p) => (offset > 0 ? p.set('offset', String(offset)) : p.delete('offset')));
}

/** The `match` text for key = value, quoting the value when the parser would otherwise trim or unquote it. */
export function exactMatcher(key: string, value: string): string {
  const quoted = value === '' || value !== value.trim() || /^(["']).*\1$/s.test(value);
  return `${key}=${quoted ? `"${value}"` : value}`;
}

/** Keys the matcher grammar can express (no `=`, no `!` before `=`/`~`); others use attr_key/attr_value. */
const matcherKey = (key: string): boolean => key.trim() === key && key !== '' && !/=|![~=]/.test(key);

/** A link that adds "attribute = value" to the current filter (attribute chips). */
export function addAttributeHref(req: FleetRequest, key: string, value: string): string {
  return edited(req.params, (p) => {
    firstPage(p);
    if (matcherKey(key)) {
      const m = exactMatcher(key, value);
      if (!p.getAll('match').includes(m)) p.append('match', m);
    } else {
      p.append('attr_key', key);
      p.append('attr_value', value);
    }
  });
}

function without(
  params: URLSearchParams,
  drop: (key: string, value: string, nth: number) => boolean,
): URLSearchParams {
  const out = new URLSearchParams();
  const seen = new Map<string, number>();
  for (const [k, v] of params) {
    const nth = seen.get(k) ?? 0;
    seen.set(k, nth + 1);
    if (!drop(k, v, nth)) out.append(k, v);
  }
  out.delete('offset');
  return out;
}

/** The attribute filters of the query (match, bare keys, legacy pairs) with links that remove each one. */
export function activeFilters(req: FleetRequest): ActiveFilter[] {
  const out: ActiveFilter[] = [];
  const href = (p: URLSearchParams) => `/${queryString(p)}`;
  // One chip per matcher of each list, so `a=1, b=2` typed once is two filters removable one by one.
  req.params.getAll('match').forEach((m, i) => {
    const parts = splitMatcherList(m).map((p) => p.text.trim());
    parts.forEach((label, j) => {
      const rest = parts.filter((_p, k) => k !== j).join(', ');
      const params = new URLSearchParams();
      let n = 0;
      for (const [k, v] of req.params) {
        if (k !== 'match' || n++ !== i) params.append(k, v);
        else if (rest !== '') params.append(k, rest);
      }
      params.delete('offset');
      out.push({ label, removeHref: href(params) });
    });
  });
  const reserved = new Set(reservedQueryKeys);
  for (const [k, v] of req.params) {
    if (reserved.has(k)) continue;
    out.push({ label: `${k}=${v}`, removeHref: href(without(req.params, (k2, v2) => k2 === k && v2 === v)) });
  }
  const values = req.params.getAll('attr_value');
  req.params.getAll('attr_key').forEach((k, i) => {
    const drop = (k2: string, _v: string, n: number) => (k2 === 'attr_key' || k2 === 'attr_value') && n === i;
    out.push({ label: `${k}=${values[i] ?? ''}`, removeHref: href(without(req.params, drop)) });
  });
  return out;
}
