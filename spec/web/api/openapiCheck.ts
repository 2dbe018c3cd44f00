// Checks a JSON API response against the OpenAPI document the service serves
// (src/web/api/openapi/openapiDocument.ts): the operation is found by method and path template, the
// status must be one it documents, and the body must match that status's schema. An /api path the
// document does not describe may only answer the generic error. Used by apiClient.ts for every
// response of the API specs, so the document cannot drift from the routes unnoticed.

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openapiDocument } from '../../../src/web/api/openapi/openapiDocument.ts';

const document = openapiDocument({ version: 'spec' });
// Formats are descriptions here (date-time, as the views write it); the validator checks structure.
const ajv = new Ajv2020({ strict: false, allErrors: true, formats: { 'date-time': true } });
ajv.addSchema(document, 'openapi.json');

type Operations = Record<string, { responses: Record<string, unknown> } | undefined>;
const templates = Object.keys(document.paths)
  .map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    params: (template.match(/\{/g) ?? []).length,
  }))
  // A literal segment wins over a parameter: /api/configs/preview is not a config named "preview".
  .sort((a, b) => a.params - b.params);

const validators = new Map<string, ValidateFunction>();
const pointer = (...parts: string[]) =>
  parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

function validatorFor(ref: string): ValidateFunction {
  let validate = validators.get(ref);
  if (validate === undefined) validators.set(ref, (validate = ajv.compile({ $ref: ref })));
  return validate;
}

export interface CheckedResponse {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly contentType: string;
  readonly json: unknown;
}

/** What is wrong with the response by the document, or undefined when it matches (or is not /api). */
export function openapiProblem(r: CheckedResponse): string | undefined {
  const path = new URL(r.url).pathname;
  const method = r.method.toLowerCase();
  if ((path !== '/api' && !path.startsWith('/api/')) || method === 'head') return undefined;
  const what = `${r.method.toUpperCase()} ${path} → ${r.status}`;
  if (!r.contentType.startsWith('application/json'))
    return `${what}: content type ${r.contentType}, not JSON`;
  const found = templates.find((t) => t.pattern.test(path));
  const operation = found && (document.paths as Record<string, Operations>)[found.template]?.[method];
  let ref = 'openapi.json#/components/schemas/Error';
  if (operation !== undefined) {
    if (!(String(r.status) in operation.responses))
      return `${what}: status ${r.status} is not documented for ${r.method.toUpperCase()} ${found!.template}`;
    ref = `openapi.json#/${pointer('paths', found!.template, method, 'responses', String(r.status), 'content', 'application/json', 'schema')}`;
  } else if (r.status < 400) return `${what}: no operation in the OpenAPI document`;
  const validate = validatorFor(ref);
  if (validate(r.json)) return undefined;
  const errors = (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  return `${what}: body does not match the OpenAPI document: ${errors.join('; ')}`;
}
