// Helpers for specs of the configs pages: remote configs from a directory (remote_config.dir, no
// database needed) and real WebSocket agents that accept remote config and report what they did
// with it.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { agentMessage, description, newUid, WsAgent } from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';
import type { TestAgent } from './pagesHarness.ts';

/** ReportsStatus | AcceptsRemoteConfig | ReportsRemoteConfig. */
const acceptingCapabilities = 0x1 | 0x2 | 0x1000;
/** RemoteConfigStatuses in the protocol. */
const statusCodes = { applied: 1, applying: 2, failed: 3 } as const;

export const configDirectory = (): string => mkdtempSync(join(tmpdir(), 'svc-ui-configs-'));

export interface ConfigFile {
  readonly selector: string;
  readonly body: string;
  readonly enabled?: boolean;
}

/** Writes NAME.yaml (strings as JSON, which YAML reads as they are). */
export function writeConfig(dir: string, name: string, file: ConfigFile): void {
  const lines = [`selector: ${JSON.stringify(file.selector)}`, `body: ${JSON.stringify(file.body)}`];
  if (file.enabled !== undefined) lines.push(`enabled: ${file.enabled}`);
  writeFileSync(join(dir, `${name}.yaml`), `${lines.join('\n')}\n`);
}

/** Reads the directory now instead of waiting for the change notice. */
export async function rescan(app: App): Promise<void> {
  const scan = (app.configs as { scan?: () => Promise<void> }).scan;
  await scan?.call(app.configs);
}

export interface ConfigAgentOptions {
  readonly name: string;
  readonly nonIdentifying?: Record<string, string>;
  /** Declares AcceptsRemoteConfig (default true). */
  readonly accepts?: boolean;
  /** What the agent then reports for its desired config; nothing (pending) when absent. */
  readonly report?: keyof typeof statusCodes;
  readonly error?: string;
}

/** Connects an agent; when `report` is given, it reports that status for the hash it should run. */
export async function connectConfigAgent(app: App, options: ConfigAgentOptions): Promise<TestAgent> {
  const uid = newUid();
  const ws = await WsAgent.open(app.urls.opamp);
  const capabilities = options.accepts === false ? 0x1 : acceptingCapabilities;
  const agentDescription = description({ 'service.name': options.name }, options.nonIdentifying ?? {});
  await ws.send(agentMessage(uid, { capabilities, agentDescription }));
  if (options.report !== undefined) {
    const agent = app.registry.get(uid as InstanceUid);
    const hash = agent === undefined ? '' : (app.desired.desiredFor(agent)?.hash ?? '');
    await ws.send(
      agentMessage(uid, {
        sequenceNum: 1,
        capabilities,
        remoteConfigStatus: {
          lastRemoteConfigHash: Buffer.from(hash, 'hex'),
          status: statusCodes[options.report],
          errorMessage: options.error ?? '',
        },
      }),
    );
  }
  return { uid, ws };
}

export interface ConfigFleet {
  readonly app: App;
  readonly dir: string;
  /** By service.name. */
  readonly agents: ReadonlyMap<string, TestAgent>;
  stop(): Promise<void>;
}

const baseBodies = [
  'receivers:\n  otlp: {}\nexporters:\n  debug: {}\n',
  'receivers:\n  otlp: {}\nexporters:\n  debug: {}\n  otlp: {endpoint: "collector:4317"}\n',
  'receivers:\n  otlp: {}\nexporters:\n  otlp: {endpoint: "collector:4317"} # main\n',
];

/**
 * A service reading configs from a directory: `base` (env=prod) with three revisions, `edge`
 * (disabled) and a file that does not parse; and agents in every config state: alpha applied,
 * bravo failed, charlie pending, delta unsupported, foxtrot applying, echo (env=dev) unmanaged.
 */
export async function startConfigFleet(config: Record<string, unknown> = {}): Promise<ConfigFleet> {
  const dir = configDirectory();
  writeConfig(dir, 'base', { selector: 'env=prod', body: baseBodies[0]! });
  writeConfig(dir, 'edge', { selector: 'service.name=~"edge.*"', body: '{"edge": true}\n', enabled: false });
  writeFileSync(join(dir, 'broken.yaml'), 'selector: [\n');
  const app = await startApp({ config: { remote_config: { dir }, ...config } });
  for (const body of baseBodies.slice(1)) {
    writeConfig(dir, 'base', { selector: 'env=prod', body });
    await rescan(app);
  }
  const prod = { env: 'prod' };
  const agents = new Map<string, TestAgent>();
  const specs: ConfigAgentOptions[] = [
    { name: 'alpha', nonIdentifying: prod, report: 'applied' },
    { name: 'bravo', nonIdentifying: prod, report: 'failed', error: 'exporter "otlp" cannot start' },
    { name: 'charlie', nonIdentifying: prod },
    { name: 'delta', nonIdentifying: prod, accepts: false },
    { name: 'foxtrot', nonIdentifying: prod, report: 'applying' },
    { name: 'echo', nonIdentifying: { env: 'dev' } },
  ];
  for (const spec of specs) agents.set(spec.name, await connectConfigAgent(app, spec));
  return {
    app,
    dir,
    agents,
    async stop() {
      for (const a of agents.values()) await a.ws.close();
      await app.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
