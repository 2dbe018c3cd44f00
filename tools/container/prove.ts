// The container proof (tools/container/check.sh runs it): the image runs with the configuration the
// Helm chart renders, on PostgreSQL outside the container, serves OpAMP, the UI and telemetry; a
// real agent (opamp-go's client library, tools/peers/agent) connects and applies a config made
// through the JSON API; then `podman stop` (SIGTERM) with a WebSocket peer connected that never
// answers the close frame ends the container within the chart's grace period, exit status 0, and the
// final flush (that peer's disconnect, which happens only at shutdown) is in the database.
//   node tools/container/prove.ts IMAGE CHART HELM AGENT KUBE_VERSION

import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { agentMessage, description } from '../../spec/support/agentClient.ts';
import { startPostgresServer } from '../../spec/support/postgres.ts';
import { frame } from '../../src/io/opamp/framing.ts';
import { connectSilentPeer } from './silentPeer.ts';
import { podman, readRendered, type Rendered } from './rendered.ts';

const [image, chart, helm, agentBinary, kubeVersion] = process.argv.slice(2);
if (!image || !chart || !helm || !agentBinary || !kubeVersion)
  throw new Error('usage: prove.ts IMAGE CHART HELM AGENT KUBE_VERSION');

const step = (text: string) => console.log(`[prove ${new Date().toISOString().slice(11, 19)}] ${text}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An error that ends the wait at once (the container exited). */
class Fatal extends Error {}

async function until<T>(what: string, probe: () => Promise<T | undefined>, seconds = 60): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  let last: Error | undefined;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      if (error instanceof Fatal) throw error;
      last = error instanceof Error ? error : new Error(String(error));
    }
    await sleep(250);
  }
  throw new Error(`timed out after ${seconds} s waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

const work = mkdtempSync(join(tmpdir(), 'svc-container-'));
const container = `opamp-fleet-server-proof-${randomBytes(4).toString('hex')}`;
const postgres = await startPostgresServer({ fsync: false });
let agent: ChildProcess | undefined;
let agentOutput = '';
let failed = true;
try {
  const setup = new pg.Client({ ...postgres, database: 'postgres' });
  await setup.connect();
  await setup.query('CREATE DATABASE fleet');
  await setup.end();

  const token = randomBytes(24).toString('hex');
  const apiTokens = `- {name: ci, role: admin, sha256: ${createHash('sha256').update(token).digest('hex')}}\n`;
  const rendered: Rendered = readRendered(helm, chart, [
    ...['--kube-version', kubeVersion],
    ...[
      '--set',
      'replicaCount=2',
      '--set',
      'database.host=127.0.0.1',
      '--set',
      `database.port=${postgres.port}`,
    ],
    ...['--set', 'database.user=postgres', '--set', 'database.dbname=fleet'],
    ...['--set', 'database.passwordSecret.name=fleet-db', '--set', 'secrets.apiTokens.name=fleet-tokens'],
  ]);
  step(`chart: grace period ${rendered.graceSeconds} s, config:\n${rendered.configYaml}`);
  const configFile = join(work, 'config.yaml');
  writeFileSync(configFile, rendered.configYaml);
  // The Secrets the chart refers to, given as the environment variables it names.
  const secretValues: Record<string, string> = { password: postgres.password, api_tokens: apiTokens };
  const env = rendered.secretEnv.flatMap(({ name, key }) => ['-e', `${name}=${secretValues[key] ?? ''}`]);

  step(`podman run ${image} (read-only root, user ${rendered.runAsUser}, no capabilities)`);
  await podman([
    ...[
      'run',
      '-d',
      '--name',
      container,
      '--network',
      'host',
      '--read-only',
      '--tmpfs',
      '/tmp',
      '--health-interval',
      'disable',
    ],
    ...['--user', `${rendered.runAsUser}:${rendered.runAsUser}`, '--cap-drop', 'ALL'],
    ...['--security-opt', 'no-new-privileges', '-v', `${configFile}:${rendered.configPath}:ro`],
    ...env,
    image,
    ...rendered.args,
  ]);
  const { opamp, ui, telemetry } = rendered.ports;
  const telemetryUrl = `http://127.0.0.1:${telemetry}`;
  const uiUrl = `http://127.0.0.1:${ui}`;
  await until('/readyz', async () => {
    const ready = await fetch(`${telemetryUrl}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return true;
    const running = await podman(['inspect', '--format', '{{.State.Running}}', container]);
    if (running.trim() !== 'true') throw new Fatal('the container exited before it was ready');
    return undefined;
  });
  step('ready; the image HEALTHCHECK, the UI and /metrics answer');
  await podman(['healthcheck', 'run', container]);
  const page = await fetch(`${uiUrl}/`);
  if (page.status !== 200) throw new Error(`UI answered ${page.status}`);
  const metrics = await (await fetch(`${telemetryUrl}/metrics`)).text();
  if (!metrics.includes('svc_build_info')) throw new Error('/metrics has no svc_build_info');

  const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  const agentOf = async (uid: string) => {
    const res = await fetch(`${uiUrl}/api/agents/${uid}`, { headers: auth });
    return res.status === 200 ? ((await res.json()) as Record<string, unknown>) : undefined;
  };
  const uid = randomUUID();
  step(`opamp-go agent ${uid} connects over WebSocket`);
  agent = spawn(agentBinary, [
    ...['-endpoint', `ws://127.0.0.1:${opamp}/v1/opamp`, '-instance-uid', uid],
    ...['-heartbeat', '1s', '-service-name', 'go-agent'],
  ]);
  agent.stdout?.on('data', (b: Buffer) => (agentOutput += b.toString()));
  agent.stderr?.on('data', (b: Buffer) => (agentOutput += b.toString()));
  await until('the agent to report', async () =>
    (await agentOf(uid))?.health_reported === true ? true : undefined,
  );

  step('a config made through the JSON API is applied by the agent');
  const created = await fetch(`${uiUrl}/api/configs`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({
      name: '10-container',
      selector: `service.instance.id=${uid}`,
      body: 'container: 1\n',
    }),
  });
  if (created.status !== 201)
    throw new Error(`POST /api/configs answered ${created.status}: ${await created.text()}`);
  const applied = await until('the config to be applied', async () => {
    const a = await agentOf(uid);
    return a?.config_state === 'applied' ? a : undefined;
  });
  const hash = String((applied.remote_config as Record<string, unknown>).reported_hash);
  await until('the agent to print it', () =>
    Promise.resolve(agentOutput.includes(`config applied ${hash}`) ? true : undefined),
  );

  const silentUid = randomUUID();
  step(`a WebSocket peer ${silentUid} that never answers the close frame connects`);
  const silent = await connectSilentPeer(
    '127.0.0.1',
    opamp,
    '/v1/opamp',
    frame(agentMessage(silentUid, { agentDescription: description({ 'service.name': 'silent-peer' }) })),
  );
  await until('the silent peer to be connected', async () =>
    (await agentOf(silentUid))?.connected === true ? true : undefined,
  );

  step(`podman stop (SIGTERM, SIGKILL after the chart's ${rendered.graceSeconds} s)`);
  const started = Date.now();
  await podman(['stop', '-t', String(rendered.graceSeconds), container]);
  const seconds = (Date.now() - started) / 1000;
  const exitCode = (await podman(['inspect', '--format', '{{.State.ExitCode}}', container])).trim();
  step(`stopped in ${seconds.toFixed(1)} s with exit status ${exitCode}`);
  silent.destroy();
  if (exitCode !== '0')
    throw new Error(`exit status ${exitCode} (137: killed at the end of the grace period)`);
  if (seconds >= rendered.graceSeconds)
    throw new Error(`took ${seconds} s, grace period ${rendered.graceSeconds} s`);

  const db = new pg.Client({ ...postgres, database: 'fleet' });
  await db.connect();
  const rows = await db.query<{
    instance_uid: string;
    connected: boolean;
    remote_config_status: string | null;
  }>(
    `SELECT a.instance_uid, s.connected, a.remote_config_status FROM agents a
       JOIN agent_session s USING (instance_uid) WHERE a.instance_uid = ANY($1)`,
    [[uid, silentUid]],
  );
  await db.end();
  const byUid = new Map(rows.rows.map((r) => [r.instance_uid, r]));
  step(`in the database: ${JSON.stringify(rows.rows)}`);
  if (byUid.get(uid)?.remote_config_status !== 'applied')
    throw new Error('the applied config is not in the database');
  // The silent peer was connected until the service cut it at shutdown: only the final flush saw that.
  if (byUid.get(silentUid)?.connected !== false)
    throw new Error("the silent peer's disconnect was not flushed");
  failed = false;
  step('passed');
} finally {
  agent?.kill('SIGKILL');
  if (failed) {
    console.log(`--- agent output ---\n${agentOutput.slice(-4000)}`);
    console.log(
      `--- container log ---\n${await podman(['logs', '--tail', '80', container], true).catch(String)}`,
    );
  }
  await podman(['rm', '-f', '-t', '0', container]).catch(() => undefined);
  await postgres.dispose();
  rmSync(work, { recursive: true, force: true });
}
