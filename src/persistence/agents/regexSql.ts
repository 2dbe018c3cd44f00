// RE2 regexes the database may evaluate itself: a conservative subset of the RE2 syntax whose
// meaning as a full match is the same in PostgreSQL's regex engine (ARE), rewritten into ARE text
// this module writes itself, so no user text reaches the database's regex parser. Anything outside
// the subset (classes, flags, anchors, escapes other than of punctuation, bounded repeats, lazy
// quantifiers) returns undefined and stays with the service's RE2 matcher (filterSql.ts).
//
// Why these agree: a full-match test has one answer whatever the engine's preference between
// alternatives (RE2 leftmost-first, ARE leftmost-longest), so only the atoms must mean the same.
// RE2's `.` matches any character but a newline; ARE's matches a newline too, so it becomes
// `[^\n]`. Literal characters become themselves (letters and digits) or a backslash and themselves
// (every other ASCII character, which ARE reads as that character); other characters stay as they
// are. Pure.

/** The subset's grammar: alt = concat ('|' concat)*; concat = (atom quant?)*; quant = * + ?. */
export function regexToPostgres(source: string): string | undefined {
  let at = 0;
  let depth = 0;
  const alternation = (): string | undefined => {
    const branches: string[] = [];
    for (;;) {
      const branch = concatenation();
      // An empty branch (`a|`, `()`) is left to RE2 rather than trusted to ARE's reading of it.
      if (branch === undefined || branch === '') return undefined;
      branches.push(branch);
      if (source[at] !== '|') return branches.join('|');
      at++;
    }
  };
  const concatenation = (): string | undefined => {
    let out = '';
    while (at < source.length && source[at] !== '|' && source[at] !== ')') {
      const unit = atom();
      if (unit === undefined) return undefined;
      const q = source[at];
      if (q === '*' || q === '+' || q === '?') {
        at++;
        // `a**`, `a*?` (lazy) and friends are left to RE2.
        const next = source[at];
        if (next === '*' || next === '+' || next === '?' || next === '{') return undefined;
        out += unit + q;
      } else if (q === '{') return undefined;
      else out += unit;
    }
    return out;
  };
  const atom = (): string | undefined => {
    const c = source[at]!;
    if (c === '(') {
      if (source[at + 1] === '?') return undefined; // flags and named groups
      at++;
      if (++depth > 32) return undefined;
      const inner = alternation();
      if (inner === undefined || source[at] !== ')') return undefined;
      at++;
      depth--;
      return `(?:${inner})`;
    }
    if (c === '.') {
      at++;
      return '[^\\n]';
    }
    if (c === '\\') {
      const next = source[at + 1];
      if (next === undefined || !/^[!-/:-@[-`{-~]$/.test(next)) return undefined;
      at += 2;
      return `\\${next}`;
    }
    if ('*+?{}[]^$|)'.includes(c)) return undefined;
    const code = source.codePointAt(at)!;
    const text = String.fromCodePoint(code);
    at += text.length;
    if (/^[A-Za-z0-9]$/.test(text)) return text;
    if (code < 0x20 || code === 0x7f) return undefined; // control characters: left to RE2
    return code < 0x80 ? `\\${text}` : text;
  };
  const body = alternation();
  if (body === undefined || at !== source.length) return undefined;
  return `^(?:${body})$`;
}

/**
 * The literal text every full match of `source` starts with ('' when none is certain), for a
 * prefix condition the database can check before the service's RE2 matcher decides.
 */
export function literalPrefix(source: string): string {
  // An alternation anywhere may offer another start: no prefix is certain.
  if (/(^|[^\\])(\\\\)*\|/.test(source)) return '';
  let prefix = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const next = source[i + 1];
    // A quantifier after this character makes it optional or repeatable: the prefix ends before it.
    if (next === '*' || next === '?' || next === '{') return prefix;
    if (/[A-Za-z0-9 _\-/:@,;=<>'"%&#!~`]/.test(c)) {
      if (next === '+') return prefix + c;
      prefix += c;
      continue;
    }
    if (c === '\\' && next !== undefined && /^[!-/:-@[-`{-~]$/.test(next)) {
      const after = source[i + 2];
      if (after === '*' || after === '?' || after === '{') return prefix;
      prefix += next;
      i++;
      if (after === '+') return prefix;
      continue;
    }
    return prefix;
  }
  return prefix;
}
