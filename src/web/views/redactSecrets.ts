// Hides secrets in a config body (YAML or JSON) for callers who need not see them (docs/security.md
// "Reads and redaction"). The body is parsed (the `yaml` package keeps each node's source range),
// and the value ranges of secret keys (secretKeys.ts) are replaced in the original text, so layout,
// comments and everything else stay as written. Keys are compared by their parsed value (an escaped
// `"pass\u0077ord"` is `password`); a mapping or sequence under a secret key has each of its values
// hidden and keeps its structure; an alias under a secret key hides its anchor's value wherever it
// is written; URL userinfo is hidden in every value. Text that does not parse, whose root is not a
// mapping or sequence, or that is past the bounds below fails closed (redactUnparsed.ts). Pure.

import { Composer, isAlias, isMap, isScalar, isSeq, Parser, Scalar, type Alias, type Document, type Node } from 'yaml';
import { redactUnparsed } from './redactUnparsed.ts';
import { isSecretKey, keyWords, mayHoldSecrets } from './secretKeys.ts';
import { onlyReferences, redactedMarker, redactUserinfo } from './secretValues.ts';

export { isSecretKey } from './secretKeys.ts';
export { redactedMarker } from './secretValues.ts';

/** Larger bodies are not parsed (the parser's work grows faster than the text on hostile input). */
export const maxParsedChars = 256 * 1024;
/** Deeper flow nesting (`[[[[…`) is not parsed: the parser recurses per level. */
export const maxFlowDepth = 64;

/**
 * What one request may still parse, shared by the bodies of one page or response: an agent may
 * report many files of maxParsedChars each. Past it, bodies fail closed (redactUnparsed.ts).
 */
export interface ParseBudget {
  left: number;
}
export const parseBudget = (chars = 2 * maxParsedChars): ParseBudget => ({ left: chars });

export interface Redacted {
  readonly text: string;
  /** How many values were hidden. */
  readonly redacted: number;
}

interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
  /** Hides the value whole (wins over a URL's userinfo edit of the same value). */
  readonly whole: boolean;
}

class Unreadable extends Error {}

function flowDepth(body: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return deepest;
}

/** The documents of the body, or undefined at its first error (one error is enough to fail closed). */
function parse(body: string): Document.Parsed[] | undefined {
  const composer = new Composer({ uniqueKeys: false, prettyErrors: false });
  // The composer reports every error through this member (private in its types); stopping at the
  // first keeps hostile text (1 MiB of `"`: one error per character) from costing an error each.
  const reporting = composer as unknown as { onError: (...args: [unknown, unknown, unknown, boolean?]) => void };
  reporting.onError = (_source, _code, _message, warning) => {
    if (warning !== true) throw new Unreadable();
  };
  try {
    const docs: Document.Parsed[] = [];
    for (const doc of composer.compose(new Parser().parse(body), true, body.length)) {
      if (doc.errors.length > 0) return undefined;
      docs.push(doc);
    }
    return docs;
  } catch {
    // Unreadable, or a RangeError from a structure deeper than the stack.
    return undefined;
  }
}

/** What replaces a scalar's source: the marker, quoted as the value was, on as many lines. */
function hiddenScalar(node: Scalar, source: string): string {
  const lines = source.split('\n');
  if (node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED) {
    const content = lines.slice(1).map((l) => (l.trim() === '' ? l : `${l.slice(0, l.length - l.trimStart().length)}${redactedMarker}`));
    return [lines[0], ...content].join('\n');
  }
  const quote = node.type === Scalar.QUOTE_DOUBLE ? '"' : node.type === Scalar.QUOTE_SINGLE ? "'" : '';
  return `${quote}${redactedMarker}${quote}${'\n'.repeat(lines.length - 1)}`;
}

/** Collects the edits of one document: a walk in source order, so an alias finds its anchor. */
function documentEdits(body: string, root: Node): Edit[] {
  const edits: Edit[] = [];
  const anchors = new Map<string, Node>();
  // What each alias named when it was read: an anchor may be defined again further on.
  const resolved = new Map<Alias, Node | undefined>();
  const anchorOf = (alias: Alias) => {
    if (!resolved.has(alias)) resolved.set(alias, anchors.get(alias.source));
    return resolved.get(alias);
  };
  const hiddenAnchors = new Set<Node>();

  function scalar(node: Scalar, secret: boolean) {
    if (!node.range) return;
    const [start, end] = node.range;
    const source = body.slice(start, end);
    const value = node.value;
    if (secret) {
      if (value === null || (typeof value === 'string' && onlyReferences(value))) return;
      edits.push({ start, end, text: hiddenScalar(node, source), whole: true });
      return;
    }
    if (typeof value !== 'string' || !value.includes('@')) return;
    const parsed = redactUserinfo(value);
    if (parsed.redacted === 0) return;
    const shown = redactUserinfo(source);
    // Userinfo spelled with escapes or folded over lines is found in the value only: the value is
    // written again, redacted, as a JSON string (valid YAML too), on as many lines.
    const lineEnds = source.split('\n').length - 1;
    const text =
      shown.redacted === parsed.redacted && parsed.found.every((f) => source.includes(f))
        ? shown.text : `${JSON.stringify(parsed.text)}${'\n'.repeat(lineEnds)}`;
    edits.push({ start, end, text, whole: false });
  }

  function walk(node: unknown, parent: readonly string[], secret: boolean): void {
    if (isAlias(node)) {
      const anchor = anchorOf(node);
      if (secret && anchor !== undefined) hiddenAnchors.add(anchor);
      return;
    }
    if (!isScalar(node) && !isMap(node) && !isSeq(node)) return;
    if (node.anchor !== undefined) anchors.set(node.anchor, node);
    if (isScalar(node)) return scalar(node, secret);
    if (isSeq(node)) {
      for (const item of node.items) walk(item, parent, secret);
      return;
    }
    for (const pair of node.items) {
      const key = isAlias(pair.key) ? anchorOf(pair.key) : pair.key;
      const name = isScalar(key) ? String(key.value) : '';
      walk(pair.key, parent, false);
      walk(pair.value, keyWords(name), secret || isSecretKey(name, parent));
    }
  }

  walk(root, [], false);
  // An anchor whose alias sits under a secret key: its value is hidden where it is written. Hiding
  // it may reach further aliases, so repeat until no new anchor is found.
  for (let done = new Set<Node>(); done.size < hiddenAnchors.size; ) {
    for (const anchor of [...hiddenAnchors]) {
      if (done.has(anchor)) continue;
      done.add(anchor);
      walk(anchor, [], true);
    }
  }
  return edits;
}

/** The edits applied to the body, in order; an edit inside one already made (or of the same value, after hiding it whole) is dropped. */
function applyEdits(body: string, edits: Edit[]): Redacted {
  edits.sort((a, b) => a.start - b.start || b.end - a.end || Number(b.whole) - Number(a.whole));
  const out: string[] = [];
  let at = 0;
  let redacted = 0;
  for (const e of edits) {
    if (e.start < at) continue;
    out.push(body.slice(at, e.start), e.text);
    at = e.end;
    redacted++;
  }
  out.push(body.slice(at));
  return { text: redacted === 0 ? body : out.join(''), redacted };
}

/** The body with secret values replaced by the marker, and how many were. */
export function redactSecrets(body: string, budget?: ParseBudget): Redacted {
  if (!mayHoldSecrets(body.toLowerCase())) return { text: body, redacted: 0 };
  const tooMuch = body.length > maxParsedChars || (budget !== undefined && body.length > budget.left);
  if (tooMuch || flowDepth(body) > maxFlowDepth) return redactUnparsed(body);
  if (budget !== undefined) budget.left -= body.length;
  const docs = parse(body);
  if (docs === undefined) return redactUnparsed(body);
  const edits: Edit[] = [];
  for (const doc of docs) {
    const root = doc.contents;
    if (root === null) continue;
    if (!isMap(root) && !isSeq(root)) return redactUnparsed(body);
    edits.push(...documentEdits(body, root));
  }
  return applyEdits(body, edits);
}
