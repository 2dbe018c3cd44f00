// Redaction of text that cannot be read as a config (it does not parse as YAML or JSON, it is not a
// mapping or sequence, or it is past the bounds of redactSecrets.ts): fail closed. Lines are shown
// up to the first one that names a secret (a secret word of secretKeys.ts anywhere in it, as a whole
// word, or a backslash escape that could spell one); that line is shown up to the word and the
// separator after it, and every line from there on is replaced by the marker, indentation kept.
// URL userinfo is hidden in the lines shown. One pass, each line looked at a bounded number of times.

import { keyWords, namesSecret } from './secretKeys.ts';
import { redactedMarker, redactUserinfo } from './secretValues.ts';

/** Where the secret part of this line starts, or -1. */
function secretStart(line: string): number {
  if (/\\[ux0-9]/i.test(line)) return line.search(/\S/);
  const words = /[A-Za-z0-9]+/g;
  const seen: string[] = [];
  for (let m = words.exec(line); m !== null; m = words.exec(line)) {
    for (const w of keyWords(m[0])) {
      seen.push(w);
      if (namesSecret(seen.slice(-2))) {
        // Shown up to the key's separator (`:` or `=`) and the blanks or quotes after it.
        const sep = line.slice(m.index).search(/[:=]/);
        if (sep < 0) return line.length;
        let end = m.index + sep + 1;
        while (end < line.length && /[\s"']/.test(line[end]!)) end++;
        return end;
      }
    }
  }
  return -1;
}

export function redactUnparsed(body: string): { readonly text: string; readonly redacted: number } {
  const lines = body.split('\n');
  let redacted = 0;
  let hiding = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (hiding) {
      if (line.trim() === '') continue;
      lines[i] = `${line.slice(0, line.length - line.trimStart().length)}${redactedMarker}`;
      redacted++;
      continue;
    }
    const start = secretStart(line);
    const shown = redactUserinfo(start < 0 ? line : line.slice(0, start));
    redacted += shown.redacted;
    if (start < 0) {
      lines[i] = shown.text;
      continue;
    }
    hiding = true;
    redacted++;
    lines[i] = `${shown.text}${start < line.length ? redactedMarker : ''}`;
  }
  return { text: redacted === 0 ? body : lines.join('\n'), redacted };
}
