// Small fetch helpers for /api specs: keep the raw text (to check exact uint64 numbers) and the parsed body.
// Every /api response is checked against the OpenAPI document by the fetch that every spec uses
// (spec/support/openapiFetch.ts): one that does not match it fails the spec that received it.

export interface ApiResponse {
  readonly status: number;
  readonly contentType: string;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
}

export async function request(url: string, init: RequestInit = {}): Promise<ApiResponse> {
  const res = await fetch(url, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    headers: res.headers,
    text,
    json,
  };
}

/** The `error` message of a JSON error body (undefined when the body is not one). */
export const errorOf = (r: ApiResponse): string | undefined =>
  (r.json as { error?: string } | undefined)?.error;
