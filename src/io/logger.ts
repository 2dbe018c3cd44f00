// Structured logs to stderr through pino: `json` for machines, `text` (pino-pretty, synchronous, no
// worker thread) for people. Secrets and effective configs are never logged: callers pass ids and
// counts, and the redact list below catches the usual suspects.

import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';
import type pretty from 'pino-pretty';

export type { Logger };

export interface LogOptions {
  readonly level: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  readonly format: 'text' | 'json';
  /** Defaults to stderr (fd 2). */
  readonly destination?: NodeJS.WritableStream;
}

// Field names that hold secrets or whole bodies, at the top and one level down (pino's paths take
// one `*` per segment). Config bodies are never logged; this is the net under that rule.
const secretFields = [
  'password',
  'token',
  'secret',
  'client_secret',
  'api_key',
  'authorization',
  'cookie',
  'body',
  'effective_config',
];
const redact = {
  paths: [
    ...secretFields,
    ...secretFields.map((f) => `*.${f}`),
    'headers.authorization',
    '*.headers.authorization',
    '*.headers.cookie',
  ],
  censor: '[redacted]',
};

export function createLogger(options: LogOptions): Logger {
  const base = { level: options.level, redact, base: { service: 'opamp-fleet-server' } };
  if (options.format === 'json') {
    return pino(base, options.destination ?? pino.destination({ fd: 2, sync: true }));
  }
  // pino-pretty only for the text format (CommonJS, loaded synchronously when that format is chosen).
  const stream = (createRequire(import.meta.url)('pino-pretty') as typeof pretty)({
    colorize: false,
    sync: true,
    translateTime: 'UTC:yyyy-mm-dd HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    destination: options.destination ?? 2,
  });
  return pino(base, stream);
}

/** A logger that writes nothing (unit specs). */
export const silentLogger = (): Logger => pino({ level: 'silent' });
