// The enrollment token of the scenarios that measure the service with agents authenticated
// (docs/security.md "Agents: enrollment tokens"): each agent presents it, so every id is bound to it.

import { createHash } from 'node:crypto';

export const benchToken = 'bench-enrollment-token-6f1d';

/** The service's configuration for it: agents.tokens with its SHA-256. */
export const tokenConfig = {
  agents: { tokens: [{ name: 'bench', sha256: createHash('sha256').update(benchToken).digest('hex') }] },
};
