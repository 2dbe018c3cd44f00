// The agent page in real headless Chromium (issue 24): what the service knows of a managed Collector,
// shown plainly. Agents speak OpAMP to the running service over WebSocket with the project's raw
// client, so each state is reached the way a real agent reaches it: a config taken and rolled back
// (the supervisor's automatic rollback, opamp-spec#397), available components sent only once asked,
// own-telemetry settings offered and reported applied, a config that names a component type the
// agent lacks held back as incompatible. Configs come from a directory. Both themes
// are checked for contrast; screenshots go to artifacts/ (agent-*.png).

import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { App } from '../../src/app.ts';
import type { InstanceUid } from '../../src/events/ids.ts';
import { eventually } from '../persistence/eventually.ts';
import { agentMessage, description, newUid, WsAgent, type ServerToAgent } from '../support/agentClient.ts';
import { startApp } from '../support/startApp.ts';
import { expectReadsWell } from './contrast.ts';
import { launchBrowser, requireChromium, screenshot, watchProblems } from './browserHarness.ts';

const ReportsStatus = 0x1;
const AcceptsRemoteConfig = 0x2;
const ReportsOwnMetrics = 0x40;
const ReportsRemoteConfig = 0x1000;
const ReportsAvailableComponents = 0x4000;
const ReportsConnectionSettingsStatus = 0x8000;
const capabilities =
  ReportsStatus |
  AcceptsRemoteConfig |
  ReportsRemoteConfig |
  ReportsAvailableComponents |
  ReportsOwnMetrics |
  ReportsConnectionSettingsStatus;
const [Applied, Applying] = [1, 2];
const ReportAvailableComponents = 0x2;

const configFile = (selector: string, body: string) => `selector: '${selector}'\nbody: |\n  ${body}\n`;
const hex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString('hex');
const configHashOf = (m: ServerToAgent | undefined) => hex(m?.remoteConfig?.configHash);
const settingsHashOf = (m: ServerToAgent | undefined) => hex(m?.connectionSettings?.hash);
const components = {
  hash: Buffer.from('a1b2c3', 'hex'),
  components: {
    receivers: { subComponentMap: { otlp: {}, hostmetrics: {} } },
    processors: { subComponentMap: { batch: {} } },
    exporters: { subComponentMap: { debug: {}, otlphttp: {} } },
  },
};

describe('the agent page in a real browser', function () {
  this.timeout(60_000);
  let dir: string;
  let app: App | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];
  const sockets: WsAgent[] = [];
  const ui = () => app!.urls.ui;

  before(async function () {
    requireChromium(this);
    dir = mkdtempSync(join(tmpdir(), 'svc-agent-page-'));
    writeFileSync(join(dir, 'edge.yaml'), configFile('service.name=edge', 'receivers: {otlp: {}}'));
    writeFileSync(
      join(dir, 'kafka.yaml'),
      configFile('service.name=lacking', 'receivers: {otlp: {}}\n  exporters: {kafka/orders: {}, debug: {}}'),
    );
    app = await startApp({
      config: {
        remote_config: { dir },
        ui: { poll_interval: '300ms' },
        own_telemetry: [
          { selector: 'service.name=edge', metrics: { endpoint: 'https://otlp.example/v1/metrics' } },
        ],
      },
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    watchProblems(page, ui, problems);
  });
  after(async () => {
    for (const ws of sockets) await ws.close();
    await browser?.close();
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An agent that rolled back: took config 2 (APPLYING), then reports config 1 APPLIED again. */
  async function rolledBackAgent(): Promise<{
    uid: string;
    first: string;
    second: string;
    settings: string;
  }> {
    const uid = newUid();
    const ws = await WsAgent.open(app!.urls.opamp);
    sockets.push(ws);
    let seq = 0;
    const say = (fields: Record<string, unknown>) =>
      ws.send(agentMessage(uid, { sequenceNum: seq++, capabilities, ...fields }));
    const hello = await say({
      agentDescription: description({ 'service.name': 'edge', 'service.version': '0.149.0' }),
      availableComponents: { hash: components.hash },
      remoteConfigStatus: {},
    });
    expect((Number(hello.flags ?? 0) & ReportAvailableComponents) !== 0, 'asked for components').to.equal(
      true,
    );
    // The config is held until the agent's components are known (it might lack a type it names).
    expect(hello.remoteConfig, 'no config before the components').to.equal(undefined);
    const listed = await say({ availableComponents: components });
    const first = configHashOf(listed);
    const settings = settingsHashOf(hello) || settingsHashOf(listed);
    expect(first, 'the config, once the components are known').to.have.length(64);
    expect(settings, 'own telemetry offered').to.have.length(64);
    await say({
      remoteConfigStatus: { lastRemoteConfigHash: Buffer.from(first, 'hex'), status: Applied },
      connectionSettingsStatus: { lastConnectionSettingsHash: Buffer.from(settings, 'hex'), status: Applied },
    });
    // A new revision reaches the agent as a push; it starts applying it, then goes back.
    writeFileSync(
      join(dir, 'edge.yaml'),
      configFile('service.name=edge', 'receivers: {otlp: {}, hostmetrics: {}}'),
    );
    const second = configHashOf(await ws.next());
    expect(second).to.have.length(64).and.not.equal(first);
    await say({ remoteConfigStatus: { lastRemoteConfigHash: Buffer.from(second, 'hex'), status: Applying } });
    const back = await say({
      remoteConfigStatus: { lastRemoteConfigHash: Buffer.from(first, 'hex'), status: Applied },
    });
    expect(back.remoteConfig, 'the rolled-back config is not offered again').to.equal(undefined);
    return { uid, first, second, settings };
  }

  it('shows a rolled-back config, the available components and the own-telemetry status plainly', async () => {
    const { uid, first, second, settings } = await rolledBackAgent();
    await eventually(
      () => Promise.resolve(app!.registry.get(uid as InstanceUid)?.rolledBackFrom === second),
      'the rollback to be recorded',
    );
    await page.goto(`${ui()}/agents/${uid}`);
    const remote = page.locator('#remote-config');
    expect(await remote.locator('.badge').textContent()).to.equal('Rolled back');
    expect(await remote.textContent())
      .to.include(first)
      .and.include('applied');
    expect(await page.locator('#rolled-back').textContent()).to.include(second.slice(0, 12));
    const available = page.locator('#available-components');
    expect(await available.locator('dt').allTextContents()).to.deep.equal([
      'exporters',
      'processors',
      'receivers',
    ]);
    expect(await available.locator('.chip').allTextContents()).to.have.members([
      'otlp',
      'hostmetrics',
      'batch',
      'debug',
      'otlphttp',
    ]);
    const own = await page.locator('#own-telemetry').textContent();
    expect(own).to.include(settings.slice(0, 12)).and.include('applied');
    await screenshot(page, 'agent-rolled-back.png');
  });

  it('says a config is incompatible and which component types the agent lacks', async () => {
    const uid = newUid();
    const ws = await WsAgent.open(app!.urls.opamp);
    sockets.push(ws);
    const hello = await ws.send(
      agentMessage(uid, {
        capabilities,
        agentDescription: description({ 'service.name': 'lacking' }),
        availableComponents: components,
        remoteConfigStatus: {},
      }),
    );
    expect(hello.remoteConfig, 'a config the agent cannot run is not sent').to.equal(undefined);
    await page.goto(`${ui()}/agents/${uid}`);
    expect(await page.locator('#remote-config .badge').textContent()).to.equal('Incompatible');
    expect(await page.locator('#incompatible li').allTextContents()).to.deep.equal(['exporters/kafka']);
    const text = (await page.locator('#incompatible').textContent())?.replace(/\s+/g, ' ');
    expect(text).to.include('so it is not sent');
    await screenshot(page, 'agent-incompatible.png');
  });

  for (const scheme of ['light', 'dark'] as const)
    it(`reads well in the ${scheme} theme`, async () => {
      const [uid] = [...app!.registry.values()].map((a) => a.uid);
      await expectReadsWell(
        page,
        scheme,
        [[`${ui()}/agents/${uid}`, `agent-page${scheme === 'dark' ? '-dark' : ''}.png`]],
        screenshot,
      );
    });

  it('raised no CSP violation, script error or request to another origin', () => {
    expect(problems).to.deep.equal([]);
  });
});
