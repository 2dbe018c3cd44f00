// The OpenAPI 3.1 document of the JSON API, served at GET /api/openapi.json (docs/api.md). Built once
// from the schemas and paths beside it; enums, limits and defaults come from the code that enforces
// them (config states, job and target states, page limits, body limits, capability flags). The API
// specs validate every JSON response they receive against it (spec/web/api/openapiCheck.ts), so a
// field or a status the routes add and this document lacks fails them.

import type { BuildInfo } from '../../../io/buildInfo.ts';
import { agentPaths } from './agentPaths.ts';
import { auditPaths, auditSchemas } from './auditPaths.ts';
import { agentSchemas } from './agentSchemas.ts';
import { configPaths } from './configPaths.ts';
import { configSchemas } from './configSchemas.ts';
import { jobPaths } from './jobPaths.ts';
import { jobSchemas } from './jobSchemas.ts';
import { object, str } from './jsonSchema.ts';
import { json, responses } from './operations.ts';

const description = `The JSON API of the OpAMP fleet server, on the UI listener under /api.
Every response is application/json; every error is {"error": "<message>"} with its status, also for
unknown /api paths (404) and wrong methods (405, with Allow). Reads are open unless the UI listener
requires a client certificate; writes that change what agents run need an admin identity.`;

export function openapiDocument(build: Pick<BuildInfo, 'version'>) {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'OpAMP fleet server API',
      version: build.version,
      description,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/', description: 'The UI listener (listeners.ui)' }],
    // Reads: anonymous, a token or a certificate (as the listener's auth settings allow).
    security: [{}, { bearerAuth: [] }, { mutualTLS: [] }],
    tags: [{ name: 'agents' }, { name: 'configs' }, { name: 'jobs' }, { name: 'audit' }],
    paths: {
      ...agentPaths,
      ...configPaths,
      ...jobPaths,
      ...auditPaths,
      '/api/openapi.json': {
        get: {
          operationId: 'getOpenApi',
          summary: 'This document',
          responses: responses({ '200': json('OpenAPI 3.1', { type: 'object' }) }, []),
        },
      },
    },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API token of auth.api_tokens (Authorization: Bearer TOKEN); its role is viewer or admin',
        },
        mutualTLS: {
          type: 'mutualTLS',
          description: 'A client certificate signed by ui_tls.client_ca_file; its SPIFFE id maps to a role',
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'svc_session',
          description:
            'A person signed in through /auth/sign-in (OpenID Connect) or the first-run link; __Host-svc_session over https',
        },
      },
      schemas: {
        Error: object({ error: str('What went wrong, in words') }),
        ...agentSchemas,
        ...configSchemas,
        ...jobSchemas,
        ...auditSchemas,
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof openapiDocument>;
