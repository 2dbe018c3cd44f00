// Hides the values of keys that look like secrets in a config body (YAML or JSON, block or flow
// style) for callers who need not see them (docs/security.md "Reads and redaction"). One pass over
// the text, each character looked at a bounded number of times: the body may be an agent's report
// built to be slow. A value that is only environment references (the Collector's `${env:X}`,
// optionally after `Bearer `/`Basic `) is no secret and stays. Pure; a best effort, not a parser:
// a secret that is not the value of a key with one of these names is shown.

export const redactedMarker = '<redacted>';

const secretWords = [
  'password',
  'passwd',
  'token',
  'secret',
  'api_key',
  'apikey',
  'authorization',
  'private_key',
  'privatekey',
];

export const isSecretKey = (key: string): boolean => {
  const k = key.toLowerCase().replaceAll('-', '_');
  return secretWords.some((w) => k.includes(w));
};

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r';
/** `[A-Za-z0-9_.$-]` by code point: a regex per character is needlessly slow on a 1 MiB body. */
function isKeyChar(c: string | undefined): boolean {
  if (c === undefined) return false;
  const x = c.charCodeAt(0);
  return (
    (x >= 97 && x <= 122) || (x >= 65 && x <= 90) || (x >= 48 && x <= 57) || x === 95 || x === 46 || x === 36 || x === 45
  );
}

/** Environment references only (`${env:X}`, `Bearer ${X}`): not a secret. */
function onlyReferences(value: string): boolean {
  let rest = '';
  let i = 0;
  for (let open = value.indexOf('${'); open >= 0; open = value.indexOf('${', i)) {
    const close = value.indexOf('}', open);
    if (close < 0) return false;
    rest += value.slice(i, open);
    i = close + 1;
  }
  if (i === 0) return false;
  rest = (rest + value.slice(i)).replace(/["']/g, '').trim().toLowerCase();
  return rest === '' || rest === 'bearer' || rest === 'basic';
}

/** Index after the quoted text starting at `i` (or the line's end when it is not closed). */
function quotedEnd(line: string, i: number): number {
  const quote = line[i];
  for (let j = i + 1; j < line.length; j++) {
    if (line[j] === '\\' && quote === '"') j++;
    else if (line[j] === quote) return j + 1;
  }
  return line.length;
}

/** Index after a flow collection starting at `i`, or the line's end. */
function flowEnd(line: string, i: number): number {
  let depth = 0;
  for (let j = i; j < line.length; j++) {
    const c = line[j];
    if (c === '"' || c === "'") j = quotedEnd(line, j) - 1;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return j + 1;
  }
  return line.length;
}

interface LineState {
  /** Open `{`/`[` carried over from earlier lines (flow style spanning lines). */
  flow: number;
  /** Set after a secret key with no value on its line: its more indented lines are its value. */
  blockIndent: number;
}

const indentOf = (line: string) => line.length - line.trimStart().length;

/** The end of a plain (unquoted) value starting at `v`. */
function plainEnd(line: string, v: number, flow: number): number {
  for (let j = v; j < line.length; j++) {
    const c = line[j];
    if (flow > 0 && (c === ',' || c === '}' || c === ']')) return j;
    if (c === '#' && isSpace(line[j - 1])) return j;
  }
  return line.length;
}

/** Redacts the value starting after the key's colon at `k`; returns [replacement end, new text]. */
function redactValue(line: string, k: number, state: LineState, out: string[]): number {
  let v = k;
  while (isSpace(line[v])) v++;
  const c = line[v];
  if (state.flow === 0 && (c === undefined || c === '#' || c === '|' || c === '>')) {
    state.blockIndent = indentOf(line);
    if (c === '|' || c === '>') out.push(line.slice(k, v), redactedMarker);
    else out.push(line.slice(k, v));
    return c === '|' || c === '>' ? plainEnd(line, v, 0) : v;
  }
  const end =
    c === '"' || c === "'" ? quotedEnd(line, v) : c === '{' || c === '[' ? flowEnd(line, v) : plainEnd(line, v, state.flow);
  const value = line.slice(v, end).trimEnd();
  const kept = onlyReferences(value);
  const quoted = c === '"' || c === "'";
  out.push(line.slice(k, v), kept ? value : quoted ? `${c}${redactedMarker}${c}` : redactedMarker);
  return v + value.length;
}

/** One line, with the state carried between lines. */
function redactLine(line: string, state: LineState): string {
  if (state.blockIndent >= 0) {
    if (line.trim() === '') return line;
    if (indentOf(line) > state.blockIndent) return `${line.slice(0, indentOf(line))}${redactedMarker}`;
    state.blockIndent = -1;
  }
  const out: string[] = [];
  let from = 0;
  let j = 0;
  while (j < line.length) {
    const c = line[j]!;
    let keyEnd = -1;
    let key = '';
    if (c === '"' || c === "'") {
      keyEnd = quotedEnd(line, j);
      key = line.slice(j + 1, keyEnd - 1);
    } else if (isKeyChar(c) && !isKeyChar(line[j - 1])) {
      keyEnd = j;
      while (isKeyChar(line[keyEnd])) keyEnd++;
      key = line.slice(j, keyEnd);
    } else if (c === '#' && (j === 0 || isSpace(line[j - 1]))) break;
    else {
      if (c === '{' || c === '[') state.flow++;
      else if ((c === '}' || c === ']') && state.flow > 0) state.flow--;
      j++;
      continue;
    }
    let k = keyEnd;
    while (isSpace(line[k])) k++;
    const isKey = line[k] === ':' && (k + 1 >= line.length || isSpace(line[k + 1]) || c === '"' || c === "'");
    if (isKey && isSecretKey(key)) {
      out.push(line.slice(from, k + 1));
      from = redactValue(line, k + 1, state, out);
      j = from;
    } else j = isKey ? k + 1 : keyEnd;
  }
  out.push(line.slice(from));
  return out.join('');
}

/** The body with secret values replaced by the marker, and how many were. */
export function redactSecrets(body: string): { readonly text: string; readonly redacted: number } {
  const lower = body.toLowerCase().replaceAll('-', '_');
  if (!secretWords.some((w) => lower.includes(w))) return { text: body, redacted: 0 };
  const state: LineState = { flow: 0, blockIndent: -1 };
  const lines: string[] = [];
  let redacted = 0;
  for (let start = 0; start <= body.length; ) {
    const end = body.indexOf('\n', start);
    const line = body.slice(start, end < 0 ? body.length : end);
    const shown = redactLine(line, state);
    if (shown !== line) redacted++;
    lines.push(shown);
    if (end < 0) break;
    start = end + 1;
  }
  return { text: redacted === 0 ? body : lines.join('\n'), redacted };
}
