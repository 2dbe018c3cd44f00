// The login and consent app Hydra sends browsers to (Hydra has no user store of its own): a form
// with a user name and password checked against static users, then Hydra's admin API told who signed
// in; consent grants the requested scopes and puts the user's email, name and groups in the ID token.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StaticUser {
  readonly username: string;
  readonly password: string;
  readonly subject: string;
  readonly email: string;
  readonly name: string;
  readonly groups: readonly string[];
}

export interface LoginApp {
  readonly url: string;
  stop(): Promise<void>;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export async function startLoginApp(adminUrl: string, users: readonly StaticUser[]): Promise<LoginApp> {
  async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const answer = await fetch(`${adminUrl}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!answer.ok) throw new Error(`hydra ${method} ${path}: ${answer.status} ${await answer.text()}`);
    return (await answer.json()) as Record<string, unknown>;
  }
  const redirect = (res: ServerResponse, to: unknown) => {
    res.writeHead(302, { Location: String(to) });
    res.end();
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://login');
    if (url.pathname === '/login' && req.method === 'GET') {
      const challenge = escape(url.searchParams.get('login_challenge') ?? '');
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(`<!doctype html><title>Company sign-in</title><form method="post" action="/login">
<input type="hidden" name="challenge" value="${challenge}">
<label>User <input name="username" id="username"></label>
<label>Password <input name="password" id="password" type="password"></label>
<button type="submit" id="login">Sign in</button></form>`);
      return;
    }
    if (url.pathname === '/login' && req.method === 'POST') {
      const form = await readForm(req);
      const user = users.find(
        (u) => u.username === form.get('username') && u.password === form.get('password'),
      );
      const challenge = encodeURIComponent(form.get('challenge') ?? '');
      if (user === undefined) {
        res.writeHead(401, { 'Content-Type': 'text/plain' });
        res.end('wrong user name or password');
        return;
      }
      const accepted = await admin(
        'PUT',
        `/admin/oauth2/auth/requests/login/accept?login_challenge=${challenge}`,
        {
          subject: user.subject,
          remember: false,
        },
      );
      return redirect(res, accepted.redirect_to);
    }
    if (url.pathname === '/consent' && req.method === 'GET') {
      const challenge = encodeURIComponent(url.searchParams.get('consent_challenge') ?? '');
      const request = await admin(
        'GET',
        `/admin/oauth2/auth/requests/consent?consent_challenge=${challenge}`,
      );
      const user = users.find((u) => u.subject === request.subject);
      const accepted = await admin(
        'PUT',
        `/admin/oauth2/auth/requests/consent/accept?consent_challenge=${challenge}`,
        {
          grant_scope: request.requested_scope,
          grant_access_token_audience: request.requested_access_token_audience,
          remember: false,
          session: { id_token: { email: user?.email, name: user?.name, groups: user?.groups ?? [] } },
        },
      );
      return redirect(res, accepted.redirect_to);
    }
    res.writeHead(404);
    res.end();
  }
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
