// What every request to the UI listener must satisfy before anything reads it (docs/security.md
// "Cross-site writes"). Pure; the listener's request guard (requestGuard.ts) applies them in one
// place for the API, the pages, /static and /jobs-ui.
//
// - Host: with ui.allowed_hosts set, the Host header must be one of them, so a page of another
//   site whose name was rebound to this address (DNS rebinding) is not answered.
// - Writes (any method but GET, HEAD, OPTIONS) must not be started by another site. A browser says
//   who started a request: `Sec-Fetch-Site` (same-origin, none = typed or bookmarked), else `Origin`.
//   A client that sends neither (curl, an SDK) is not a browser riding on someone's certificate.
// - JSON endpoints (/api/*) take a body only as `application/json` (or `+json`), which an HTML form
//   cannot send; a form of any enctype gets 415 before its body is read.

export interface RequestHeaders {
  readonly method: string;
  readonly path: string;
  /** Host ('' when absent). */
  readonly host: string;
  /** Origin ('' when absent). */
  readonly origin: string;
  /** Sec-Fetch-Site ('' when absent). */
  readonly fetchSite: string;
  /** Content-Type ('' when absent). */
  readonly contentType: string;
  /** Whether the request carries a body (Content-Length above 0, or Transfer-Encoding). */
  readonly hasBody: boolean;
}

export interface RequestPolicy {
  /** ui.allowed_hosts, lower case; empty allows any Host. */
  readonly allowedHosts: readonly string[];
  /** ui.allowed_origins, lower case. */
  readonly allowedOrigins: readonly string[];
}

/** Why a request is refused: the metric's `reason` label, the status and a message for the client. */
export interface Refusal {
  readonly reason: 'host' | 'cross_site' | 'content_type';
  readonly status: 403 | 415;
  readonly error: string;
}

const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
const sameOriginSites = new Set(['same-origin', 'none']);

const hostName = (host: string): string => host.replace(/:\d*$/, '');

/** Undefined when the Host header names this listener (or no list is configured). */
export function hostProblem(host: string, allowedHosts: readonly string[]): string | undefined {
  if (allowedHosts.length === 0) return undefined;
  const given = host.toLowerCase();
  if (allowedHosts.some((h) => h === given || h === hostName(given))) return undefined;
  return `Host ${JSON.stringify(host)} is not in ui.allowed_hosts`;
}

/** The origin (`scheme://host[:port]`) of an Origin header, or undefined when it is not one. */
export function originOf(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.host === '' ? undefined : url.origin.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Undefined when a write with these headers was not started by another site. */
export function crossSiteProblem(
  headers: Pick<RequestHeaders, 'origin' | 'fetchSite' | 'host'>,
  allowedOrigins: readonly string[],
): string | undefined {
  const origin = headers.origin === '' ? undefined : originOf(headers.origin);
  if (origin !== undefined && allowedOrigins.includes(origin)) return undefined;
  const site = headers.fetchSite.toLowerCase();
  if (site !== '')
    return sameOriginSites.has(site) ? undefined : `cross-site write refused (Sec-Fetch-Site: ${site})`;
  if (headers.origin === '') return undefined;
  if (origin !== undefined && new URL(origin).host === headers.host.toLowerCase()) return undefined;
  return `cross-site write refused (Origin: ${headers.origin})`;
}

/** A JSON media type: application/json or application/*+json, parameters ignored. */
export function isJsonType(contentType: string): boolean {
  const media = (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
  return media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json'));
}

const isApiPath = (path: string): boolean => path === '/api' || path.startsWith('/api/');

/** The first rule this request breaks, or undefined. */
export function refusalOf(request: RequestHeaders, policy: RequestPolicy): Refusal | undefined {
  const host = hostProblem(request.host, policy.allowedHosts);
  if (host !== undefined) return { reason: 'host', status: 403, error: host };
  if (readMethods.has(request.method)) return undefined;
  const crossSite = crossSiteProblem(request, policy.allowedOrigins);
  if (crossSite !== undefined) return { reason: 'cross_site', status: 403, error: crossSite };
  const typed = request.contentType !== '';
  if (isApiPath(request.path) && (typed || request.hasBody) && !isJsonType(request.contentType))
    return {
      reason: 'content_type',
      status: 415,
      error: `the JSON API takes request bodies as Content-Type: application/json, got ${JSON.stringify(request.contentType)}`,
    };
  return undefined;
}
