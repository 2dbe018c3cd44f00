// What every operation of the document is built from: JSON responses, the error responses, the
// parameters shared by several paths and the two ways to authenticate a write.

import { configStates } from '../../../projections/remoteConfig/configState.ts';
import { defaultLimit, maxLimit } from '../../query/page.ts';
import { ref, type Schema } from './jsonSchema.ts';

export type Operation = Record<string, unknown>;

export const json = (description: string, schema: Schema) => ({
  description,
  content: { 'application/json': { schema } },
});

const errorTexts: Record<string, string> = {
  '400': 'Invalid parameters or body; `error` says which and why',
  '401': 'An Authorization header that is not a known API token',
  '403': 'The identity may not do this (a viewer writing, no identity for a write, a refused certificate)',
  '404': 'No such resource',
  '409': 'Conflict; `error` says with what',
  '413': 'Request body over the limit',
  '500': 'Internal error (details are logged, never sent)',
  '503': 'Not available: jobs need persistence, configs need a source',
};

/** The responses of an operation: its successes and, as `{"error": …}`, the errors it may answer. */
export function responses(ok: Record<string, unknown>, errors: readonly string[]): Record<string, unknown> {
  const all = [...new Set(['401', '403', '500', ...errors])].sort();
  return { ...ok, ...Object.fromEntries(all.map((code) => [code, json(errorTexts[code]!, ref('Error'))])) };
}

export const pathParam = (name: string, schema: Schema, description: string) => ({
  name,
  in: 'path',
  required: true,
  schema,
  description,
});
export const queryParam = (name: string, schema: Schema, description: string) => ({
  name,
  in: 'query',
  schema,
  description,
});

export const pageParams = [
  queryParam('limit', { type: 'integer', minimum: 1, maximum: maxLimit, default: defaultLimit }, 'Page size'),
  queryParam('offset', { type: 'integer', minimum: 0, default: 0 }, 'Items to skip'),
];
export const configStateParam = queryParam(
  'config_state',
  { type: 'string', enum: [...configStates] },
  'Keep agents in this config state',
);

/** Writes need an admin identity, or none with auth.allow_unauthenticated_writes: true. */
export const writeSecurity = [{ bearerAuth: [] }, { mutualTLS: [] }, { sessionCookie: [] }];
export const writeNote =
  'Needs an admin identity (API token, client certificate or a signed-in person); anonymous only with `auth.allow_unauthenticated_writes: true`.';

export const jsonBody = (schema: Schema, maxBytes: number, required = true) => ({
  required,
  description: `JSON, at most ${maxBytes} bytes`,
  content: { 'application/json': { schema } },
});
