// How the service reaches PostgreSQL, from the `database.*` keys. Pure: the pools, the migrators and
// the job-queue UI all derive their settings here, so they always agree.
//
// database.sslmode means what libpq means by it:
//   disable      plain TCP
//   require      TLS, certificate not verified
//   verify-ca    TLS, certificate chain verified against the trusted CAs, host name not checked
//   verify-full  TLS, chain and host name verified
// Trusted CAs are Node's (add a private CA with NODE_EXTRA_CA_CERTS).

import type { ConnectionOptions } from 'node:tls';
import type { Config } from '../../io/config/schema.ts';

/** The connection's keys of database (write_concurrency is the agent writer's). */
export type DatabaseConfig = Omit<Config['database'], 'write_concurrency'>;

export interface ConnectionSettings {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  readonly ssl: false | ConnectionOptions;
}

export function tlsOptions(sslmode: DatabaseConfig['sslmode']): false | ConnectionOptions {
  switch (sslmode) {
    case 'disable':
      return false;
    case 'require':
      return { rejectUnauthorized: false };
    case 'verify-ca':
      return { rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case 'verify-full':
      return { rejectUnauthorized: true };
    default: {
      const _exhaustive: never = sslmode;
      return false;
    }
  }
}

export function connectionSettings(db: DatabaseConfig): ConnectionSettings {
  return {
    host: db.host,
    port: db.port,
    user: db.user,
    password: db.password,
    database: db.dbname,
    ssl: tlsOptions(db.sslmode),
  };
}

/**
 * A postgres:// URL for components that only take one (the job-queue UI). `uselibpqcompat` makes
 * node-postgres read sslmode as libpq does (otherwise it treats `require` as `verify-full`).
 */
export function connectionUrl(db: DatabaseConfig): string {
  const url = new URL('postgres://localhost');
  url.hostname = db.host.includes(':') && !db.host.startsWith('[') ? `[${db.host}]` : db.host;
  url.port = String(db.port);
  url.username = encodeURIComponent(db.user);
  url.password = encodeURIComponent(db.password);
  url.pathname = `/${encodeURIComponent(db.dbname)}`;
  url.searchParams.set('sslmode', db.sslmode);
  if (db.sslmode !== 'disable') url.searchParams.set('uselibpqcompat', 'true');
  return url.toString();
}
