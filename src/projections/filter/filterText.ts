// A job's filter as written (POST /api/jobs, the Roll out… form): either a matcher list, as typed in
// the fleet box (`connected=true, service.name=~"otelcol.*"`), or the agent list's query string
// (`connected=true&match=service.name=~"otelcol.*"`), which older jobs hold. Pure.
//
// It is a query string when it holds an `&` outside quotes or starts with a parameter that only the
// query string has (`match=`, `attr_key=`, `component=`, ...); anything else is a list. Both read
// `connected=true` and `env=prod` the same way, so the two forms agree wherever both could apply.

const queryOnlyKeys = ['match', 'attr_key', 'attr_value', 'component', 'limit', 'offset', 'sort', 'order'];

function hasAmpersandOutsideQuotes(text: string): boolean {
  let quote: string | undefined;
  for (const c of text) {
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '&') return true;
  }
  return false;
}

/** One plain `key=value` reads the same in both forms; as a query string its links stay short. */
const plainPair = /^[^\s,"'~!&=]+=[^\s,"'~!&=]*$/;

export function isQueryStringFilter(text: string): boolean {
  const key = text.split('=', 1)[0]!.trim();
  return hasAmpersandOutsideQuotes(text) || queryOnlyKeys.includes(key) || plainPair.test(text);
}

/** The filter as the agent list's query parameters. */
export function filterParams(text: string): URLSearchParams {
  if (isQueryStringFilter(text)) return new URLSearchParams(text);
  const params = new URLSearchParams();
  if (text.trim() !== '') params.append('match', text);
  return params;
}
