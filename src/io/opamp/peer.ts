// Who is on the other end of a request: remote address and, under OpAMP mTLS, the verified client
// certificate's subject.

import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

export interface Peer {
  readonly remoteAddr: string;
  readonly tlsSubject: string | null;
}

function formatAddress(address: string | undefined, port: number | undefined): string {
  if (address === undefined) return '';
  const host = address.startsWith('::ffff:') ? address.slice(7) : address;
  const shown = host.includes(':') ? `[${host}]` : host;
  return port === undefined ? shown : `${shown}:${port}`;
}

/** RFC 4514 escaping of one attribute value, so a hostile CN cannot pose as extra attributes. */
function escapeValue(value: string): string {
  return value
    .replace(/[\\,+"<>;=]/g, (c) => `\\${c}`)
    .replace(/^[ #]/, (c) => `\\${c}`)
    .replace(/ $/, '\\ ');
}

/** RFC 4514-like text of a certificate subject: "CN=agent-1,O=Example" (attributes in certificate order). */
export function subjectText(subject: Record<string, string | string[]> | undefined): string | null {
  if (!subject) return null;
  const parts = Object.entries(subject).map(
    ([k, v]) => `${k}=${(Array.isArray(v) ? v : [v]).map(escapeValue).join(`,${k}=`)}`,
  );
  return parts.length > 0 ? parts.join(',') : null;
}

export function peerOf(req: IncomingMessage): Peer {
  const socket = req.socket as TLSSocket;
  let tlsSubject: string | null = null;
  if (socket.encrypted && socket.authorized) {
    tlsSubject = subjectText(
      socket.getPeerCertificate()?.subject as unknown as Record<string, string> | undefined,
    );
  }
  return { remoteAddr: formatAddress(socket.remoteAddress, socket.remotePort), tlsSubject };
}
