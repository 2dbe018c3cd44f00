// A one-shot HTTPS client for specs: a fresh connection per request (agent: false), so each request
// presents exactly the client certificate it names.

import { request } from 'node:https';

export interface ClientTls {
  readonly ca: string;
  readonly cert?: string;
  readonly key?: string;
}

export interface HttpsReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  readonly body: Buffer;
}

export function httpsRequest(
  url: string,
  tls: ClientTls,
  options: { method?: string; body?: string | Uint8Array; headers?: Record<string, string> } = {},
): Promise<HttpsReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: false,
        ca: tls.ca,
        cert: tls.cert,
        key: tls.key,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: body.toString(), body });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
