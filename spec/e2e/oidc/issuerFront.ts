// The provider's public address, as the service and the browser see it: a pass-through in front of
// Hydra's public port. A spec can change the token endpoint's next answers (`tamper`), as an attacker
// on the network, or a provider that went wrong, would: the service must refuse what it then gets.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type TokenTamper = (answer: Record<string, unknown>) => Record<string, unknown>;

export interface IssuerFront {
  readonly url: string;
  /** Applied to the token endpoint's JSON answers while set. */
  tamper: TokenTamper | undefined;
  /** Applied to the Location of the provider's redirects (back to the service) while set. */
  redirect: ((location: string) => string) | undefined;
  stop(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startIssuerFront(target: string): Promise<IssuerFront> {
  const front: Pick<IssuerFront, 'tamper' | 'redirect'> = { tamper: undefined, redirect: undefined };
  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string' && name !== 'host' && name !== 'connection') headers.set(name, value);
    const answer = await fetch(`${target}${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers,
      redirect: 'manual',
      ...(body.length > 0 ? { body } : {}),
    });
    let text = Buffer.from(await answer.arrayBuffer());
    const tamper = front.tamper;
    if (tamper !== undefined && req.url?.startsWith('/oauth2/token') && answer.ok)
      text = Buffer.from(
        JSON.stringify(tamper(JSON.parse(text.toString('utf8')) as Record<string, unknown>)),
      );
    const out: Record<string, string | string[]> = {};
    answer.headers.forEach((value, name) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name))
        out[name] = value;
    });
    const location = answer.headers.get('location');
    if (location !== null && front.redirect !== undefined) out.location = front.redirect(location);
    const cookies = answer.headers.getSetCookie();
    if (cookies.length > 0) out['set-cookie'] = cookies;
    res.writeHead(answer.status, out);
    res.end(text);
  }
  const server: Server = createServer((req, res) => {
    forward(req, res).catch((error: unknown) => {
      res.writeHead(502);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(front, {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
