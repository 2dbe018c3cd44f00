import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { InstanceUid } from '../../../src/events/ids.ts';
import {
  connectConfigAgent,
  rescan,
  startConfigFleet,
  writeConfig,
  type ConfigFleet,
} from './configsHarness.ts';
import { get } from './pagesHarness.ts';

/** The agent page's Remote config panel. */
const section = (html: string) =>
  /<div class="panel panel-body" id="remote-config">.*?<\/div><div class="panel/s.exec(html)?.[0] ?? '';

describe('agent detail page: remote config section', () => {
  let fleet: ConfigFleet;
  const page = async (name: string) => {
    const uid = fleet.agents.get(name)!.uid;
    return section((await get(`${fleet.app.urls.ui}/agents/${uid}`)).body);
  };
  const desiredHash = (name: string) => {
    const agent = fleet.app.registry.get(fleet.agents.get(name)!.uid as InstanceUid)!;
    return fleet.app.desired.desiredFor(agent)!.hash;
  };

  before(async () => {
    fleet = await startConfigFleet();
  });
  after(() => fleet.stop());

  it('shows the config state, the desired hash and the configs in it, what the agent reported and its error', async () => {
    const html = await page('bravo');
    expect(html).to.include('<h2>Remote config</h2>');
    expect(html).to.include('<span class="badge cfg-failed">Failed</span>');
    expect(html).to.include(`<dd class="mono">${desiredHash('bravo')}</dd>`);
    expect(html).to.include(
      '<a class="chip" href="/configs/base" title="Config base, revision 3">base<span class="k">@3</span></a>',
    );
    expect(html.split(desiredHash('bravo')).length).to.equal(3); // desired and reported are the same hash
    expect(html).to.include('<span class="tag">failed</span>');
    expect(html).to.include('<dd class="health-error">exporter &quot;otlp&quot; cannot start</dd>');
  });

  it('shows a pending agent as having reported nothing yet, and an unsupported one as such', async () => {
    const charlie = await page('charlie');
    expect(charlie).to.include('<span class="badge cfg-pending">Pending</span>');
    expect(charlie).to.include('<span class="muted">none reported</span>');
    expect(await page('delta')).to.include('<span class="badge cfg-unsupported">Unsupported</span>');
  });

  it('says when no config targets the agent', async () => {
    const echo = await page('echo');
    expect(echo).to.include('<span class="badge cfg-unmanaged">Unmanaged</span>');
    expect(echo).to.include('none: no config targets this agent');
    expect(echo).not.to.include('keeps running');
  });

  it('says that the agent keeps what it last applied when its config no longer targets it', async () => {
    writeConfig(fleet.dir, 'solo', { selector: 'service.name=golf', body: 'solo: true\n' });
    await rescan(fleet.app);
    const golf = await connectConfigAgent(fleet.app, { name: 'golf', report: 'applied' });
    try {
      const url = `${fleet.app.urls.ui}/agents/${golf.uid}`;
      expect(section((await get(url)).body)).to.include('<span class="badge cfg-applied">Applied</span>');
      rmSync(join(fleet.dir, 'solo.yaml'));
      await rescan(fleet.app);
      const html = section((await get(url)).body);
      expect(html).to.include('<span class="badge cfg-unmanaged">Unmanaged</span>');
      expect(html).to.include(
        'No config targets this agent any more; it keeps running the one it last applied.',
      );
    } finally {
      await golf.ws.close();
    }
  });
});
