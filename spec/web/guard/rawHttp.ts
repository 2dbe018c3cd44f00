// A plain node:http client for the request-guard specs: it sends exactly the headers given (Host,
// Origin, Sec-Fetch-Site included, which fetch would replace or drop), as curl does.

import { request as httpRequest } from 'node:http';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

const lengthOf = (body: string | Buffer | undefined): Record<string, string> =>
  body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) };

type RawOptions = { method?: string; headers?: Record<string, string>; body?: string | Buffer };

/**
 * One request. A kept-alive socket the server closed as idle just as this request went out fails
 * with ECONNRESET before the server saw anything; as Node's documentation advises, that one is sent
 * again on a new socket. Any other error fails.
 */
export async function raw(url: string, options: RawOptions = {}): Promise<RawResponse> {
  try {
    return await once(url, options);
  } catch (error) {
    if ((error as { staleSocket?: boolean }).staleSocket === true) return once(url, options);
    throw error;
  }
}

function once(url: string, options: RawOptions): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      // A body always goes with its length: Node sends DELETE and OPTIONS bodies without one otherwise.
      { method: options.method ?? 'GET', headers: { ...lengthOf(options.body), ...options.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      const stale = error.code === 'ECONNRESET' && req.reusedSocket;
      reject(stale ? Object.assign(error, { staleSocket: true }) : error);
    });
    req.end(options.body);
  });
}
