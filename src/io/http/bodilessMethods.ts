// GET, HEAD and OPTIONS carry no body on any listener (docs/security.md "Limits and hostile input"):
// a request of one of them that declares a body (a Content-Length above zero, or any
// Transfer-Encoding) is answered 400 and its connection closed before a route sees it. A body there
// has no meaning to any route, would be left unread on the socket (or, after a WebSocket upgrade,
// read as frames), and is how smuggled requests hide.

import type { IncomingMessage } from 'node:http';

const bodiless = new Set(['GET', 'HEAD', 'OPTIONS']);

export function hasForbiddenBody(req: IncomingMessage): boolean {
  if (!bodiless.has(req.method ?? '')) return false;
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0' && Number(length) !== 0;
}

export const forbiddenBodyText = 'GET, HEAD and OPTIONS carry no body\n';

/** The bare 400 for an upgrade (its socket has left the HTTP server). */
export const forbiddenBodyResponse = `HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${forbiddenBodyText.length}\r\n\r\n${forbiddenBodyText}`;
