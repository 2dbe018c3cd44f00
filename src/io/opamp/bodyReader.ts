// Reads one plain-HTTP request body for the OpAMP transport, the cheapest way Node's http module
// allows: no promise, and no copy of a body that arrives in one chunk (nearly every agent message);
// a body in several chunks is copied once into a buffer of its declared Content-Length, or joined at
// the end when it declared none (chunked). A declared length over `limit` is refused before reading;
// a body that passes the limit is cut off there (Node drains and discards the rest). With
// `timeoutMs`, a body not complete that long after the call is refused (BodyTooSlow). A request that
// closes before its body ended is not answered (its timer goes with it).

import type { IncomingMessage } from 'node:http';

export class BodyTooLarge extends Error {}
export class BodyTooSlow extends Error {}

type Done = (error: Error | undefined, body: Buffer | undefined) => void;

class BodyRead {
  readonly #req: IncomingMessage;
  readonly #limit: number;
  readonly #declared: number;
  #done: Done | undefined;
  #first: Buffer | undefined = undefined;
  /** The declared length's buffer, once a second chunk came. */
  #whole: Buffer | undefined = undefined;
  /** Chunks of a body without a declared length. */
  #chunks: Buffer[] | undefined = undefined;
  #size = 0;
  #timer: NodeJS.Timeout | undefined = undefined;

  constructor(req: IncomingMessage, limit: number, declared: number, done: Done) {
    this.#req = req;
    this.#limit = limit;
    this.#declared = declared;
    this.#done = done;
  }

  start(timeoutMs: number | undefined): void {
    const req = this.#req;
    // Plain `on`: #finish answers once, and `once` would wrap each listener per request.
    req.on('data', this.#onData);
    req.on('end', this.#onEnd);
    req.on('error', this.#onError);
    req.on('close', this.#onClose);
    // Nearly every body is parsed in the same read as its headers, after this call: its timer is
    // armed only when it is not complete once that read is done.
    if (timeoutMs !== undefined) process.nextTick(armUnlessComplete, this, timeoutMs);
  }

  arm(timeoutMs: number): void {
    if (this.#done !== undefined && !this.#req.complete) this.#timer = setTimeout(this.#onTimeout, timeoutMs);
  }

  /** Without `body` or `error`: the request closed first, and nobody is there to answer. */
  #finish(error: Error | undefined, body: Buffer | undefined): void {
    const done = this.#done;
    if (done === undefined) return;
    this.#done = undefined;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    // After the end no more data comes: its listeners stay, and find #done gone. A refused body is
    // drained (its rest discarded); a later error finds its listener.
    if (error !== undefined) {
      this.#req.off('data', this.#onData);
      this.#req.resume();
    }
    if (error !== undefined || body !== undefined) done(error, body);
  }

  readonly #onData = (chunk: Buffer): void => {
    const size = this.#size + chunk.length;
    this.#size = size;
    if (size > this.#limit) return this.#finish(new BodyTooLarge(), undefined);
    if (this.#first === undefined) {
      this.#first = chunk;
      return;
    }
    if (this.#declared >= 0) {
      if (this.#whole === undefined) {
        this.#whole = Buffer.allocUnsafe(this.#declared);
        this.#first.copy(this.#whole, 0);
      }
      chunk.copy(this.#whole, size - chunk.length);
    } else (this.#chunks ??= [this.#first]).push(chunk);
  };

  readonly #onEnd = (): void => {
    const size = this.#size;
    const body =
      this.#whole !== undefined
        ? this.#whole.subarray(0, size)
        : this.#chunks !== undefined
          ? Buffer.concat(this.#chunks, size)
          : (this.#first ?? Buffer.alloc(0));
    this.#finish(undefined, body);
  };

  readonly #onError = (error: Error): void => this.#finish(error, undefined);
  readonly #onClose = (): void => this.#finish(undefined, undefined);
  readonly #onTimeout = (): void => {
    this.#timer = undefined;
    this.#finish(new BodyTooSlow(), undefined);
  };
}

const armUnlessComplete = (read: BodyRead, timeoutMs: number): void => read.arm(timeoutMs);

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
  new BodyRead(req, limit, Number.isSafeInteger(declared) ? declared : -1, done).start(timeoutMs);
}
