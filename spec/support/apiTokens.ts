// An `auth.api_tokens` entry as an operator writes it: the token's SHA-256 in hex, never the token.

import { createHash } from 'node:crypto';

export interface ApiTokenEntry {
  readonly name: string;
  readonly sha256: string;
  readonly role: 'admin' | 'viewer';
}

export function apiToken(name: string, token: string, role: ApiTokenEntry['role']): ApiTokenEntry {
  return { name, sha256: createHash('sha256').update(token).digest('hex'), role };
}
