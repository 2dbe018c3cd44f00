// Who may post the UI's own writes (the job page's buttons): only this UI's pages. A client
// certificate, or an anonymous caller allowed to write, goes with every request a browser makes,
// also those another site starts (cross-site request forgery). So a write must carry htmx's
// `HX-Request: true`, a header no other site can add without a CORS preflight this server never
// grants, and the origin headers the browser sets, when present, must name this host. Pure.

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

const refusal = 'job actions are taken from the job page of this UI only; use the JSON API from elsewhere';

/** Why this write is not from this UI, or undefined when it is. */
export function crossSiteProblem(headers: WriteHeaders): string | undefined {
  if (headers.hxRequest !== 'true') return `${refusal} (HX-Request missing)`;
  if (headers.fetchSite !== '' && headers.fetchSite !== 'same-origin')
    return `${refusal} (Sec-Fetch-Site: ${headers.fetchSite})`;
  if (headers.origin === '') return undefined;
  let host: string;
  try {
    host = new URL(headers.origin).host;
  } catch {
    return `${refusal} (Origin: ${headers.origin})`;
  }
  return host !== '' && host === headers.host.toLowerCase()
    ? undefined
    : `${refusal} (Origin: ${headers.origin})`;
}
