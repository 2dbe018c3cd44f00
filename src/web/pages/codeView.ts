// A config body as a page shows it (the agent page's effective config, the config page's body):
// at most maxShownBytes of it, cut at a line end, with secrets redacted for callers who need not see
// them, then highlighted. The cut bounds every step after it, whatever an agent reports; the JSON
// API serves the whole file.

import { redactSecrets, type ParseBudget } from '../views/redactSecrets.ts';
import { detectLanguage, highlight, maxHighlightBytes, type Language, type Token } from './highlight.ts';

/** What a page shows of one body; the rest is in the JSON API. */
export const maxShownBytes = maxHighlightBytes;

export interface CodeView {
  readonly language: Language;
  /** Size of the whole body in bytes. */
  readonly bytes: number;
  readonly tokens: readonly Token[];
  /** Bytes shown when the body was cut, else undefined. */
  readonly shownBytes: number | undefined;
  /** Secret values hidden from this caller. */
  readonly redacted: number;
}

/** The first maxShownBytes characters (a UTF-16 bound, cheap), back to the last line end in them. */
function cut(body: string): string | undefined {
  if (body.length <= maxShownBytes) return undefined;
  const end = body.lastIndexOf('\n', maxShownBytes);
  return body.slice(0, end > 0 ? end + 1 : maxShownBytes);
}

/** `budget` is shared by the bodies of one page (redactSecrets.ts ParseBudget). */
export function codeView(
  name: string,
  contentType: string,
  body: string,
  revealSecrets: boolean,
  budget?: ParseBudget,
): CodeView {
  const part = cut(body);
  const shown = part ?? body;
  const language = detectLanguage(name, contentType, shown);
  const { text, redacted } = revealSecrets ? { text: shown, redacted: 0 } : redactSecrets(shown, budget);
  return {
    language,
    bytes: Buffer.byteLength(body),
    tokens: highlight(text, language),
    shownBytes: part === undefined ? undefined : Buffer.byteLength(part),
    redacted,
  };
}
