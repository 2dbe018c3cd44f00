// The audit log's filters, from a query string (GET /api/audit and the Audit page alike): `who`
// (part of a name or id), `action`, `target` (a config name, job id or agent id), `since` and
// `until` (RFC 3339 times, or dates), `limit` (1..500, default 100) and `before` (an entry id: the
// next page).

import { auditActions, type AuditAction, type AuditFilter } from '../../projections/access/auditLog.ts';

export const maxAuditLimit = 500;

export type AuditQuery = { ok: true; filter: AuditFilter } | { ok: false; error: string };

function time(name: string, text: string | null): number | string | undefined {
  if (text === null || text === '') return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? `${name} must be a time such as 2026-11-27T15:00:00Z or 2026-11-27` : ms;
}

function count(name: string, text: string | null, min: number, max: number): number | string | undefined {
  if (text === null || text === '') return undefined;
  const n = Number(text);
  return Number.isInteger(n) && n >= min && n <= max ? n : `${name} must be an integer from ${min} to ${max}`;
}

export function parseAuditQuery(params: URLSearchParams): AuditQuery {
  const action = params.get('action') ?? '';
  if (action !== '' && !auditActions.includes(action as AuditAction))
    return { ok: false, error: `action must be one of ${auditActions.join(', ')}` };
  const since = time('since', params.get('since'));
  const until = time('until', params.get('until'));
  const limit = count('limit', params.get('limit'), 1, maxAuditLimit);
  const before = count('before', params.get('before'), 1, Number.MAX_SAFE_INTEGER);
  for (const value of [since, until, limit, before])
    if (typeof value === 'string') return { ok: false, error: value };
  const filter: AuditFilter = {
    ...(params.get('who') ? { who: params.get('who')! } : {}),
    ...(action !== '' ? { action: action as AuditAction } : {}),
    ...(params.get('target') ? { target: params.get('target')! } : {}),
    ...(since === undefined ? {} : { since: since as number }),
    ...(until === undefined ? {} : { until: until as number }),
    limit: (limit as number | undefined) ?? 100,
    ...(before === undefined ? {} : { before: before as number }),
  };
  return { ok: true, filter };
}
