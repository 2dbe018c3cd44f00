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

export function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
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
    req.on('error', reject);
    req.end(options.body);
  });
}
