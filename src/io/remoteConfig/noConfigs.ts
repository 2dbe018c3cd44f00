// The catalog when configs have no source: no database and no remote_config.dir. Nothing is in
// force and writes answer 503 naming what to configure.

import type { ConfigCatalog, WriteOutcome } from '../../projections/remoteConfig/configCatalog.ts';

export function createNoConfigs(): ConfigCatalog {
  const reason =
    'remote configs need a source: set database.host to write them through the API, or remote_config.dir to read them from files';
  const refused = (): Promise<WriteOutcome> => Promise.resolve({ ok: false, status: 503, error: reason });
  return {
    source: 'none',
    readOnly: { status: 503, reason },
    list: () => Promise.resolve([]),
    get: () => Promise.resolve(undefined),
    revisions: () => Promise.resolve(undefined),
    revision: () => Promise.resolve(undefined),
    create: refused,
    update: refused,
    restore: refused,
    remove: refused,
    problems: () => [],
  };
}
