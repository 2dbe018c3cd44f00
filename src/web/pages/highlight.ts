// A small local syntax highlighter for effective configuration files (issue 6: no CDN, no client
// library). It only classifies text into tokens; concatenating the token texts gives back the input
// exactly, and the template escapes every token, so a hostile config cannot inject markup.

import { highlightJson } from './jsonTokens.ts';
import type { Token, TokenClass } from './token.ts';

export type { Token, TokenClass } from './token.ts';

export type Language = 'json' | 'yaml' | 'text';

/** Bodies above this size are shown as plain text: highlighting is for reading, not for megabytes. */
export const maxHighlightBytes = 256 * 1024;

/** Content types and file names are short; an agent may still send a long one. */
const maxHintLength = 1024;

/**
 * The language of a body, for highlighting only. Size comes first (a body too large to highlight is
 * text, whatever it looks like), then the hints, then one linear pass over the lines for a YAML key.
 */
export function detectLanguage(filename: string, contentType: string, body: string): Language {
  if (body.length > maxHighlightBytes) return 'text';
  const hint = `${contentType} ${filename}`.slice(0, maxHintLength).toLowerCase();
  if (hint.includes('json')) return 'json';
  if (hint.includes('yaml') || hint.includes('yml')) return 'yaml';
  let first = 0;
  while (first < body.length && /\s/.test(body[first]!)) first++;
  if (body[first] === '{' || body[first] === '[') return 'json';
  for (let start = 0; start <= body.length;) {
    const end = body.indexOf('\n', start);
    const line = body.slice(start, end < 0 ? body.length : end);
    if (isPlainKeyLine(line)) return 'yaml';
    if (end < 0) break;
    start = end + 1;
  }
  return 'text';
}

const isKeyChar = (c: string) => /[\w.-]/.test(c);

/** `  key:` or `  key: value` with key of word characters, dots and dashes. Linear in the line. */
function isPlainKeyLine(line: string): boolean {
  let i = 0;
  while (line[i] === ' ' || line[i] === '\t') i++;
  const keyStart = i;
  while (i < line.length && isKeyChar(line[i]!)) i++;
  if (i === keyStart) return false;
  while (line[i] === ' ' || line[i] === '\t') i++;
  return line[i] === ':' && (i + 1 === line.length || /\s/.test(line[i + 1]!));
}

const yamlListItem = /^(\s*)(-)(?=\s|$)/;

interface KeyLine {
  readonly indent: string;
  readonly dash: string;
  readonly key: string;
  readonly colon: string;
  readonly rest: string;
}

/** End index of a quoted key starting at `i` (the index after its closing quote), or -1. */
function quotedEnd(line: string, i: number): number {
  const quote = line[i];
  for (let j = i + 1; j < line.length; j++) {
    if (quote === '"' && line[j] === '\\') j++;
    else if (line[j] === quote) return j + 1;
  }
  return -1;
}

/**
 * `indent [- ]key: rest` found by one left-to-right scan (no backtracking regex: the body comes from an
 * agent and may be hostile). The key ends at the first `:` followed by whitespace or the line end.
 */
function splitKey(line: string): KeyLine | undefined {
  let i = 0;
  while (line[i] === ' ' || line[i] === '\t') i++;
  const indent = line.slice(0, i);
  let dash = '';
  if (line[i] === '-' && (line[i + 1] === ' ' || line[i + 1] === '\t')) {
    let j = i + 1;
    while (line[j] === ' ' || line[j] === '\t') j++;
    dash = line.slice(i, j);
    i = j;
  }
  const start = i;
  const first = line[i];
  if (first === undefined || '#{}[],&*!|>%@`'.includes(first)) return undefined;
  let end: number;
  if (first === '"' || first === "'") {
    end = quotedEnd(line, i);
    if (end < 0) return undefined;
  } else {
    end = -1;
    for (let j = i; j < line.length; j++) {
      const c = line[j];
      if (c === '#' && (line[j - 1] === ' ' || line[j - 1] === '\t')) return undefined;
      if (c === ':' && (j + 1 === line.length || line[j + 1] === ' ' || line[j + 1] === '\t')) {
        end = j;
        break;
      }
    }
    if (end < 0) return undefined;
  }
  const keyText = line.slice(start, end);
  const key = keyText.trimEnd();
  let k = end;
  while (line[k] === ' ' || line[k] === '\t') k++;
  if (line[k] !== ':' || (k + 1 < line.length && line[k + 1] !== ' ' && line[k + 1] !== '\t'))
    return undefined;
  return {
    indent,
    dash,
    key,
    colon: keyText.slice(key.length) + line.slice(end, k + 1),
    rest: line.slice(k + 1),
  };
}

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
  const key = splitKey(line);
  if (key) {
    const out: Token[] = [];
    if (key.indent) out.push({ c: '', v: key.indent });
    if (key.dash) out.push({ c: 'punct', v: key.dash });
    out.push({ c: 'key', v: key.key }, { c: 'punct', v: key.colon });
    return [...out, ...yamlScalar(key.rest)];
  }
  const item = yamlListItem.exec(line);
  if (item) {
    const [whole, indent = '', dash = ''] = item;
    return [
      ...(indent ? [{ c: '' as const, v: indent }] : []),
      { c: 'punct', v: dash },
      ...yamlScalar(line.slice(whole.length)),
    ];
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
