// Reads one plain-HTTP request body for the OpAMP transport, the cheapest way Node's http module
// allows: no promise, no closure per request (the listeners are shared, their state rides on the
// request), and no copy of a body that arrives in one chunk (nearly every agent message); a body in
// several chunks is copied once into a buffer of its declared Content-Length, or joined at the end
// when it declared none (chunked). A declared length over `limit` is refused before reading; a body
// that passes the limit is cut off there (Node drains and discards the rest). With `timeoutMs`, a
// body not complete that long after the call is refused (BodyTooSlow). A request that closes before
// its body ended is not answered (its timer, if any, goes with it).

import type { IncomingMessage } from 'node:http';

export class BodyTooLarge extends Error {}
export class BodyTooSlow extends Error {}

type Done = (error: Error | undefined, body: Buffer | undefined) => void;

interface BodyState {
  readonly limit: number;
  /** The Content-Length, or -1 (chunked). */
  readonly declared: number;
  done: Done | undefined;
  first: Buffer | undefined;
  /** The declared length's buffer, once a second chunk came. */
  whole: Buffer | undefined;
  /** Chunks of a body without a declared length. */
  chunks: Buffer[] | undefined;
  size: number;
  timer: NodeJS.Timeout | undefined;
}

const bodyKey = Symbol('opamp body');
type Reading = IncomingMessage & { [bodyKey]: BodyState };

/** Without `body` or `error`: the request closed first, and nobody is there to answer. */
function finish(req: Reading, error: Error | undefined, body: Buffer | undefined): void {
  const state = req[bodyKey];
  const done = state.done;
  if (done === undefined) return;
  state.done = undefined;
  if (state.timer !== undefined) clearTimeout(state.timer);
  // After the end no more data comes: the listeners stay, and find `done` gone. A refused body is
  // drained (its rest discarded); a later error finds its listener.
  if (error !== undefined) {
    req.off('data', onData);
    req.resume();
  }
  if (error !== undefined || body !== undefined) done(error, body);
}

function onData(this: Reading, chunk: Buffer): void {
  const state = this[bodyKey];
  const size = state.size + chunk.length;
  state.size = size;
  if (size > state.limit) return finish(this, new BodyTooLarge(), undefined);
  if (state.first === undefined) {
    state.first = chunk;
    return;
  }
  if (state.declared >= 0) {
    if (state.whole === undefined) {
      state.whole = Buffer.allocUnsafe(state.declared);
      state.first.copy(state.whole, 0);
    }
    chunk.copy(state.whole, size - chunk.length);
  } else (state.chunks ??= [state.first]).push(chunk);
}

function onEnd(this: Reading): void {
  const state = this[bodyKey];
  const size = state.size;
  const body =
    state.whole !== undefined
      ? state.whole.subarray(0, size)
      : state.chunks !== undefined
        ? Buffer.concat(state.chunks, size)
        : (state.first ?? Buffer.alloc(0));
  finish(this, undefined, body);
}

function onError(this: Reading, error: Error): void {
  finish(this, error, undefined);
}

function onClose(this: Reading): void {
  finish(this, undefined, undefined);
}

function onTimeout(req: Reading): void {
  req[bodyKey].timer = undefined;
  finish(req, new BodyTooSlow(), undefined);
}

/**
 * Nearly every body is parsed in the same read as its headers, after readBody: its timer is armed
 * only when it is not complete once that read is done (the parser calls back for the headers, each
 * body piece and the end one by one, running the tick queue after each: a tick comes too early, the
 * loop's check phase does not).
 */
function armUnlessComplete(req: Reading, timeoutMs: number): void {
  const state = req[bodyKey];
  if (state.done === undefined || req.complete) return;
  if (req.destroyed) return finish(req, undefined, undefined);
  state.timer = setTimeout(onTimeout, timeoutMs, req);
  // Only a timer needs the close: without one, an unfinished read holds nothing.
  req.on('close', onClose);
}

/** Calls `done` at most once: with the body, or with BodyTooLarge, BodyTooSlow or the request's error. */
export function readBody(
  req: IncomingMessage,
  limit: number,
  timeoutMs: number | undefined,
  done: Done,
): void {
  const header = req.headers['content-length'];
  const declared = header === undefined ? -1 : Number(header);
  if (declared > limit) return done(new BodyTooLarge(), undefined);
  const reading = req as Reading;
  reading[bodyKey] = {
    limit,
    declared: Number.isSafeInteger(declared) ? declared : -1,
    done,
    first: undefined,
    whole: undefined,
    chunks: undefined,
    size: 0,
    timer: undefined,
  };
  // Plain `on`: `finish` answers once, and `once` would wrap each listener per request.
  reading.on('data', onData);
  reading.on('end', onEnd);
  reading.on('error', onError);
  if (timeoutMs !== undefined) setImmediate(armUnlessComplete, reading, timeoutMs);
}
