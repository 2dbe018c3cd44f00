// Values that are, or hold, secrets whatever their key: credentials in a URL's userinfo
// (`https://user:S@host` → `https://user:<redacted>@host`; a userinfo with no `:` is often a token,
// so it is hidden whole). And the one kind of value under a secret key that is shown: environment
// references only (the Collector's `${env:X}`, optionally after `Bearer `/`Basic `), which name a
// secret without holding it.

export const redactedMarker = '<redacted>';

// Bounded repetitions: no regex backtracking grows with the text.
const userinfo = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)([^\s/?#@"'<>]{1,1024})@/gi;

/** The text with URL userinfo hidden, how many were, and what each was (`scheme://info@`). */
export function redactUserinfo(text: string): { readonly text: string; readonly redacted: number; readonly found: string[] } {
  const found: string[] = [];
  if (!text.includes('@')) return { text, redacted: 0, found };
  let redacted = 0;
  const shown = text.replace(userinfo, (all: string, scheme: string, info: string) => {
    redacted++;
    found.push(all);
    const colon = info.indexOf(':');
    return colon < 0 ? `${scheme}${redactedMarker}@` : `${scheme}${info.slice(0, colon)}:${redactedMarker}@`;
  });
  return { text: shown, redacted, found };
}

/** Environment references only (`${env:X}`, `Bearer ${X}`): not a secret. */
export function onlyReferences(value: string): boolean {
  let rest = '';
  let i = 0;
  for (let open = value.indexOf('${'); open >= 0; open = value.indexOf('${', i)) {
    const close = value.indexOf('}', open);
    if (close < 0) return false;
    rest += value.slice(i, open);
    i = close + 1;
  }
  if (i === 0) return false;
  rest = (rest + value.slice(i)).trim().toLowerCase();
  return rest === '' || rest === 'bearer' || rest === 'basic';
}
