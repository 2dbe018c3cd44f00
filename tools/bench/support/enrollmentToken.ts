// The enrollment token the benchmarks' agents present when a scenario measures the service with
// agents.tokens on (docs/security.md): the service is configured with its SHA-256 only, as an
// operator would configure it.

import { createHash } from 'node:crypto';

export const benchToken = 'bench-enrollment-token-2f7c9a';

/** Service configuration that makes every OpAMP request present benchToken. */
export const tokensOn = {
  agents: { tokens: [{ name: 'bench', sha256: createHash('sha256').update(benchToken).digest('hex') }] },
};
