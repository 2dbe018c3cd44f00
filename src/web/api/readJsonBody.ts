// Reads a JSON request body with a byte limit. A declared Content-Length over the limit is refused
// before reading; a streamed body is cut off as soon as it passes the limit (the rest is discarded
// by Node after the response), so an oversized body never sits in memory in full.

import type { IncomingMessage } from 'node:http';

export type BodyResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly status: 400 | 413; readonly error: string };

function tooLarge(limit: number): BodyResult {
  return { ok: false, status: 413, error: `request body is larger than ${limit} bytes` };
}

function collect(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        resolve(undefined);
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** With `allowEmpty`, an empty body reads as `undefined` instead of a 400. */
export async function readJsonBody(
  req: IncomingMessage,
  limit: number,
  { allowEmpty = false } = {},
): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return tooLarge(limit);
  const bytes = await collect(req, limit);
  if (bytes === undefined) return tooLarge(limit);
  if (allowEmpty && bytes.length === 0) return { ok: true, value: undefined };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, status: 400, error: 'request body is not valid UTF-8' };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'parse error';
    return { ok: false, status: 400, error: `request body is not valid JSON: ${reason}` };
  }
}
