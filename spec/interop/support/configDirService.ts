// The service with its remote configs in a directory (the GitOps path of docs/remote-config.md), and
// a count of every remote config it offers: what "offered once, never in a loop" is checked against.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import type { App } from '../../../src/app.ts';
import { startApp } from '../../support/startApp.ts';
import { countOffers } from './offerCount.ts';

export interface ConfigDirService {
  readonly app: App;
  /** Writes the config NAME targeting the agent with this `service.instance.id`. */
  target(name: string, uid: string, body: string): Promise<void>;
  /** How many times the service offered this config hash to this agent. */
  offersOf(uid: string, hash: string): number;
  stop(): Promise<void>;
}

export async function startConfigDirService(): Promise<ConfigDirService> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-configs-'));
  const app = await startApp({ config: { remote_config: { dir } } });
  const offers = countOffers(app);
  return {
    app,
    target: (name, uid, body) =>
      writeFile(join(dir, `${name}.yaml`), dump({ selector: `service.instance.id=${uid}`, body })),
    offersOf: (uid, hash) => offers.offersOf(uid, hash),
    stop: async () => {
      offers.stop();
      await app.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
