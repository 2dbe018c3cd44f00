// Loaded before every spec (.mocharc.json `require`): wraps the global fetch so that every /api
// response any spec receives (not only through spec/web/api/apiClient.ts) is checked against the
// OpenAPI document. A response that does not match it rejects the fetch, failing that spec.

import { openapiProblem } from '../web/api/openapiCheck.ts';

const original = globalThis.fetch;

function describe(input: string | URL | Request, init: RequestInit | undefined) {
  if (input instanceof Request) return { url: input.url, method: init?.method ?? input.method };
  return { url: String(input), method: init?.method ?? 'GET' };
}

globalThis.fetch = async function checkedFetch(input: string | URL | Request, init?: RequestInit) {
  const response = await original(input, init);
  const { url, method } = describe(input, init);
  const path = new URL(url).pathname;
  if (path !== '/api' && !path.startsWith('/api/')) return response;
  const text = await response.clone().text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const contentType = response.headers.get('content-type') ?? '';
  const problem = openapiProblem({ method, url, status: response.status, contentType, json });
  if (problem !== undefined) throw new Error(problem);
  return response;
};
