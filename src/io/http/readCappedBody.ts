// Reads a request body with a byte limit, for every listener route that takes one. A declared
// Content-Length over the limit is refused before reading; a streamed body is cut off as soon as it
// passes the limit (the rest is drained and discarded by Node), so an oversized body never sits in
// memory in full. Undefined means "too large".

import type { IncomingMessage } from 'node:http';

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

export async function readCappedBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return undefined;
  return collect(req, limit);
}
