// A real OpenID Provider for the sign-in specs: Ory Hydra (built by tools/peers/build.sh, pinned in
// tools/peers/versions.env) on its own test database, with
// - the login and consent app Hydra delegates to (loginApp.ts), answering as a company's login page
//   would: a form with a user name and password, checked against static users with their groups;
// - a front on the issuer address (issuerFront.ts): every request to the provider, the browser's
//   and the service's, passes through it unchanged, unless a spec asks it to change the token
//   endpoint's answer (a tampered ID token, one for another audience), as a network attacker could.

import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, type TestDatabase } from '../../support/postgres.ts';
import { startIssuerFront, type IssuerFront } from './issuerFront.ts';
import { startLoginApp, type LoginApp, type StaticUser } from './loginApp.ts';

export interface Hydra {
  /** The issuer URL (the front's address), with a trailing slash as Hydra states it. */
  readonly issuer: string;
  readonly adminUrl: string;
  readonly front: IssuerFront;
  readonly login: LoginApp;
  createClient(redirectUris: string[]): Promise<{ id: string; secret: string }>;
  /** Adds a new signing key for ID tokens (Hydra signs with the newest) and removes the others. */
  rotateSigningKey(): Promise<string>;
  stop(): Promise<void>;
}

const keySet = 'hydra.openid.id-token';

async function run(binary: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`hydra ${args.join(' ')} exited ${code}:\n${output.slice(-3000)}`);
}

async function waitReady(adminUrl: string, child: ChildProcess, output: () => string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`hydra exited ${child.exitCode}:\n${output().slice(-3000)}`);
    try {
      const answer = await fetch(`${adminUrl}/health/ready`);
      if (answer.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`hydra did not become ready:\n${output().slice(-3000)}`);
}

export async function startHydra(
  binary: string,
  db: TestDatabase,
  users: readonly StaticUser[],
): Promise<Hydra> {
  const [publicPort, adminPort] = [await freePort(), await freePort()];
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const front = await startIssuerFront(`http://127.0.0.1:${publicPort}`);
  const login = await startLoginApp(adminUrl, users);
  const issuer = `${front.url}/`;
  const env = {
    PATH: process.env.PATH,
    DSN: `postgres://${db.user}:${encodeURIComponent(db.password)}@${db.host}:${db.port}/${db.dbname}?sslmode=disable`,
    URLS_SELF_ISSUER: issuer,
    URLS_SELF_PUBLIC: issuer,
    URLS_LOGIN: `${login.url}/login`,
    URLS_CONSENT: `${login.url}/consent`,
    SERVE_PUBLIC_HOST: '127.0.0.1',
    SERVE_PUBLIC_PORT: String(publicPort),
    SERVE_ADMIN_HOST: '127.0.0.1',
    SERVE_ADMIN_PORT: String(adminPort),
    SECRETS_SYSTEM: 'a-system-secret-of-the-sign-in-specs',
    LOG_LEVEL: 'warn',
    SQA_OPT_OUT: 'true',
  };
  await run(binary, ['migrate', 'sql', 'up', '-e', '--yes'], env);
  const child = spawn(binary, ['serve', 'all', '--dev', '--sqa-opt-out'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await waitReady(adminUrl, child, () => output);

  async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
    const answer = await fetch(`${adminUrl}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await answer.text();
    if (!answer.ok) throw new Error(`hydra ${method} ${path}: ${answer.status} ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  }

  return {
    issuer,
    adminUrl,
    front,
    login,
    async createClient(redirectUris) {
      const client = (await admin('POST', '/admin/clients', {
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: redirectUris,
        scope: 'openid profile email groups',
        token_endpoint_auth_method: 'client_secret_basic',
      })) as { client_id: string; client_secret: string };
      return { id: client.client_id, secret: client.client_secret };
    },
    async rotateSigningKey() {
      const before = (await admin('GET', `/admin/keys/${keySet}`)) as { keys: { kid: string }[] };
      const kid = `rotated-${Date.now()}`;
      await admin('POST', `/admin/keys/${keySet}`, { alg: 'RS256', kid, use: 'sig' });
      for (const key of before.keys) await admin('DELETE', `/admin/keys/${keySet}/${key.kid}`);
      return kid;
    },
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.on('exit', resolve));
      await login.stop();
      await front.stop();
    },
  };
}
