// ConfigRevisionRecord values for unit specs of the configs pages' helpers.

import type { ConfigRevisionRecord } from '../../../src/events/configData.ts';

export function revision(n: number, over: Partial<ConfigRevisionRecord> = {}): ConfigRevisionRecord {
  return {
    name: 'base',
    revision: n,
    selector: 'env=prod',
    body: `receivers: {}\nrevision: ${n}\n`,
    contentType: 'text/yaml',
    enabled: true,
    bodyHash: `hash-${n}`,
    author: 'ci-admin',
    createdAt: Date.UTC(2026, 0, 1, 0, n),
    draft: false,
    restoredFrom: null,
    ...over,
  };
}
