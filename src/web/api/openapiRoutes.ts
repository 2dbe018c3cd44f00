// GET /api/openapi.json: the OpenAPI 3.1 document of this API (openapi/openapiDocument.ts), built
// once per router and served as it is.

import { openapiDocument } from './openapi/openapiDocument.ts';
import type { ApiDeps, ApiRouter } from './apiDeps.ts';
import { sendJson } from './jsonResponse.ts';

export function openapiRoutes(router: ApiRouter, deps: ApiDeps): void {
  const document = openapiDocument(deps.build);
  router.get('/api/openapi.json', (ctx) => {
    sendJson(ctx, 200, document);
  });
}
