// A small local syntax highlighter for effective configuration files (issue 6: no CDN, no client
// library). It only classifies text into tokens; concatenating the token texts gives back the input
// exactly, and the template escapes every token, so a hostile config cannot inject markup.

export type TokenClass = 'key' | 'str' | 'num' | 'lit' | 'com' | 'punct' | '';

export interface Token {
  readonly c: TokenClass;
  readonly v: string;
}

export type Language = 'json' | 'yaml' | 'text';

/** Bodies above this size are shown as plain text: highlighting is for reading, not for megabytes. */
export const maxHighlightBytes = 256 * 1024;

export function detectLanguage(filename: string, contentType: string, body: string): Language {
  const hint = `${contentType} ${filename}`.toLowerCase();
  if (/json/.test(hint)) return 'json';
  if (/ya?ml/.test(hint)) return 'yaml';
  const start = body.trimStart()[0];
  if (start === '{' || start === '[') return 'json';
  return /^\s*[\w.-]+\s*:(\s|$)/m.test(body) ? 'yaml' : 'text';
}

const jsonToken = /("(?:[^"\\\n]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b|([{}[\],:])/g;

function highlightJson(body: string): Token[] {
  const out: Token[] = [];
  let last = 0;
  for (const m of body.matchAll(jsonToken)) {
    if (m.index > last) out.push({ c: '', v: body.slice(last, m.index) });
    if (m[1] !== undefined) {
      out.push({ c: m[2] !== undefined ? 'key' : 'str', v: m[1] });
      if (m[2] !== undefined) out.push({ c: 'punct', v: m[2] });
    } else if (m[3] !== undefined) out.push({ c: 'num', v: m[3] });
    else if (m[4] !== undefined) out.push({ c: 'lit', v: m[4] });
    else out.push({ c: 'punct', v: m[0] });
    last = m.index + m[0].length;
  }
  if (last < body.length) out.push({ c: '', v: body.slice(last) });
  return out;
}

const yamlKey = /^(\s*)(-\s+)?((?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"{}[\],][^:#]*?))(\s*:)(?=\s|$)/;
const yamlListItem = /^(\s*)(-)(?=\s|$)/;

function yamlScalar(text: string): Token[] {
  const comment = /(^|\s)#/.exec(text);
  const value = comment ? text.slice(0, comment.index + comment[1]!.length) : text;
  const rest = comment ? text.slice(value.length) : '';
  const trimmed = value.trim();
  const lead = value.slice(0, value.length - value.trimStart().length);
  const tail = value.slice(lead.length + trimmed.length);
  const out: Token[] = [];
  if (lead) out.push({ c: '', v: lead });
  if (trimmed) {
    const c: TokenClass = /^(["']).*\1$/.test(trimmed)
      ? 'str'
      : /^[-+]?(\d[\d_]*(\.\d*)?([eE][-+]?\d+)?|0x[\da-fA-F]+|\.inf|\.nan)$/.test(trimmed)
        ? 'num'
        : /^(true|false|yes|no|on|off|null|~|[&*!][^\s]*|[|>][-+]?)$/i.test(trimmed)
          ? 'lit'
          : /^[{[]/.test(trimmed)
            ? 'punct'
            : 'str';
    out.push({ c, v: trimmed });
  }
  if (tail) out.push({ c: '', v: tail });
  if (rest) out.push({ c: 'com', v: rest });
  return out;
}

function highlightYamlLine(line: string): Token[] {
  if (/^\s*#/.test(line)) return [{ c: 'com', v: line }];
  if (/^(---|\.\.\.)\s*$/.test(line)) return [{ c: 'punct', v: line }];
  const key = yamlKey.exec(line);
  if (key) {
    const [whole, indent = '', dash, name = '', colon = ''] = key;
    const out: Token[] = [];
    if (indent) out.push({ c: '', v: indent });
    if (dash) out.push({ c: 'punct', v: dash });
    out.push({ c: 'key', v: name }, { c: 'punct', v: colon });
    return [...out, ...yamlScalar(line.slice(whole.length))];
  }
  const item = yamlListItem.exec(line);
  if (item) {
    const [whole, indent = '', dash = ''] = item;
    return [...(indent ? [{ c: '' as const, v: indent }] : []), { c: 'punct', v: dash }, ...yamlScalar(line.slice(whole.length))];
  }
  return yamlScalar(line);
}

function highlightYaml(body: string): Token[] {
  const out: Token[] = [];
  body.split('\n').forEach((line, i) => {
    if (i > 0) out.push({ c: '', v: '\n' });
    out.push(...highlightYamlLine(line));
  });
  return out;
}

export function highlight(body: string, language: Language): Token[] {
  if (body.length > maxHighlightBytes || language === 'text') return [{ c: '', v: body }];
  return language === 'json' ? highlightJson(body) : highlightYaml(body);
}
