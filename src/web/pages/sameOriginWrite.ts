// Who may post the UI's own writes (the job page's buttons, the config editor): only this UI's pages. The listener's
// request guard has already refused writes another site started (guard/requestRules.ts); a button's
// post must also carry htmx's `HX-Request: true`, a header no other site can add without a CORS
// preflight this server never grants. Pure.

import { crossSiteProblem as siteProblem } from '../guard/requestRules.ts';

export interface WriteHeaders {
  /** HX-Request. */
  readonly hxRequest: string;
  /** Origin ('' when absent). */
  readonly origin: string;
  /** Sec-Fetch-Site ('' when absent). */
  readonly fetchSite: string;
  /** Host: the host (and port) this request was sent to. */
  readonly host: string;
}

const jobRefusal = 'job actions are taken from the job page of this UI only; use the JSON API from elsewhere';

/** Why this write is not from this UI, or undefined when it is; `refusal` says what the UI's writes are. */
export function crossSiteProblem(headers: WriteHeaders, refusal = jobRefusal): string | undefined {
  if (headers.hxRequest !== 'true') return `${refusal} (HX-Request missing)`;
  const problem = siteProblem(headers, []);
  return problem === undefined ? undefined : `${refusal}: ${problem}`;
}
