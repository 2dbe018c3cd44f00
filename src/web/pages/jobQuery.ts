// The job page's own query: which targets its table shows (`state`, one target state) and from
// where (`offset`), 50 to a page. Pure; a bad value is a message for a 400 shown in the page.

import { targetStates, type TargetState } from '../../projections/jobs/jobStore.ts';
import { queryString } from './fleetRequest.ts';

export const targetPageSize = 50;

export interface JobQuery {
  readonly state?: TargetState;
  readonly offset: number;
  readonly error?: string;
}

export function parseJobQuery(params: URLSearchParams): JobQuery {
  const state = params.get('state') ?? '';
  const offsetText = params.get('offset') ?? '0';
  const offset = /^[0-9]{1,9}$/.test(offsetText) ? Number(offsetText) : Number.NaN;
  if (Number.isNaN(offset))
    return { offset: 0, error: `offset must be an integer ≥ 0, got ${JSON.stringify(offsetText)}` };
  if (state === '') return { offset };
  if (!targetStates.includes(state as TargetState))
    return {
      offset: 0,
      error: `state must be one of ${targetStates.join(', ')}, got ${JSON.stringify(state)}`,
    };
  return { state: state as TargetState, offset };
}

/** `?state=failed&offset=50` for the query with `edit` applied (undefined drops a key). */
export function jobQueryString(
  query: JobQuery,
  edit: { state?: TargetState | undefined; offset?: number } = {},
) {
  const state = 'state' in edit ? edit.state : query.state;
  const offset = edit.offset ?? query.offset;
  const out = new URLSearchParams();
  if (state !== undefined) out.set('state', state);
  if (offset > 0) out.set('offset', String(offset));
  return queryString(out);
}
