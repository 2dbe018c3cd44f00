// JSON highlighting by one left-to-right scan: every character is looked at a bounded number of
// times, whatever the text (an agent's effective config may be built to make a backtracking regex
// take quadratic time, such as a line of `\"` repeated with no closing quote). Concatenating the
// tokens gives back the input exactly.

import type { Token, TokenClass } from './token.ts';

const punctuation = new Set(['{', '}', '[', ']', ',', ':']);
const literals = ['true', 'false', 'null'] as const;
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isWord = (c: string | undefined) => c !== undefined && /[\w$]/.test(c);

/** End of the string starting at `i` (after its closing quote), or of the line when unterminated. */
function stringEnd(body: string, i: number): { end: number; closed: boolean } {
  for (let j = i + 1; j < body.length; j++) {
    const c = body[j];
    if (c === '\\') j++;
    else if (c === '"') return { end: j + 1, closed: true };
    else if (c === '\n') return { end: j, closed: false };
  }
  return { end: body.length, closed: false };
}

function numberEnd(body: string, i: number): number {
  let j = body[i] === '-' ? i + 1 : i;
  while (isDigit(body[j])) j++;
  if (body[j] === '.' && isDigit(body[j + 1])) for (j++; isDigit(body[j]);) j++;
  if ((body[j] === 'e' || body[j] === 'E') && (isDigit(body[j + 1]) || /[+-]/.test(body[j + 1] ?? ''))) {
    j += body[j + 1] === '+' || body[j + 1] === '-' ? 2 : 1;
    while (isDigit(body[j])) j++;
  }
  return j;
}

/** Whitespace then a colon after a closing quote: the string was a key. Index after the colon, or -1. */
function colonAfter(body: string, i: number): number {
  let j = i;
  while (body[j] === ' ' || body[j] === '\t' || body[j] === '\r' || body[j] === '\n') j++;
  return body[j] === ':' ? j + 1 : -1;
}

export function highlightJson(body: string): Token[] {
  const out: Token[] = [];
  let plain = 0;
  const emit = (from: number, to: number, c: TokenClass) => {
    if (from > plain) out.push({ c: '', v: body.slice(plain, from) });
    out.push({ c, v: body.slice(from, to) });
    plain = to;
  };
  let i = 0;
  while (i < body.length) {
    const c = body[i]!;
    if (c === '"') {
      const { end, closed } = stringEnd(body, i);
      const colon = closed ? colonAfter(body, end) : -1;
      if (!closed) i = end;
      else if (colon < 0) emit(i, (i = end), 'str');
      else {
        emit(i, end, 'key');
        emit(end, (i = colon), 'punct');
      }
    } else if (isDigit(c) || (c === '-' && isDigit(body[i + 1]))) {
      const end = numberEnd(body, i);
      if (isWord(body[i - 1])) i = end;
      else emit(i, (i = end), 'num');
    } else if (punctuation.has(c)) emit(i, (i = i + 1), 'punct');
    else {
      const word = literals.find((w) => body.startsWith(w, i));
      const bounded = word !== undefined && !isWord(body[i - 1]) && !isWord(body[i + word.length]);
      if (bounded) emit(i, (i = i + word.length), 'lit');
      else i++;
    }
  }
  if (plain < body.length) out.push({ c: '', v: body.slice(plain) });
  return out;
}
