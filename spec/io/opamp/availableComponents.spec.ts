// Available components over both transports with the running service: an agent that sends only
// their hash (as the supervisor does) is asked for the list, the list is kept and shown, and the
// hash alone again keeps it. Unit rules beside them: the ask never goes to an agent that does not
// declare ReportsAvailableComponents.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { asksForComponents, componentsToRecord } from '../../../src/projections/agent/availableComponents.ts';
import { agent as fixture } from '../../support/agentFixture.ts';
import { agentMessage, description, newUid, postHttp, WsAgent } from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';

const ReportsAvailableComponents = 0x4000;
const ReportAvailableComponentsFlag = 2;
const capabilities = 0x1 | ReportsAvailableComponents;
const hash = Buffer.from('c0ffee', 'hex');
const onlyHash = { hash };
const whole = {
  hash,
  components: {
    receivers: { subComponentMap: { otlp: {}, hostmetrics: {} } },
    exporters: { subComponentMap: { debug: {}, otlphttp: {} } },
  },
};
const asked = (flags: unknown) => (Number(flags ?? 0) & ReportAvailableComponentsFlag) !== 0;

describe('available components', () => {
  describe('the rules', () => {
    const held = { hash: 'aa', components: { receivers: ['otlp'] } };
    it('keeps the list when the agent sends the same hash alone, takes anything else', () => {
      expect(componentsToRecord(held, { hash: 'aa', components: {} })).to.equal(undefined);
      expect(componentsToRecord(held, { hash: 'bb', components: {} })).to.deep.equal({
        hash: 'bb',
        components: {},
      });
      expect(componentsToRecord(null, undefined)).to.equal(undefined);
    });
    it('asks only an agent that declares ReportsAvailableComponents and whose list is not held', () => {
      const declares = fixture({ over: { capabilities: BigInt(capabilities), availableComponents: null } });
      expect(asksForComponents(declares, { hash: 'aa', components: {} }, false)).to.equal(true);
      expect(asksForComponents(declares, undefined, true), 'a new connection').to.equal(true);
      expect(asksForComponents(declares, undefined, false), 'a plain check-in').to.equal(false);
      const silent = fixture({ over: { capabilities: 1n, availableComponents: null } });
      expect(asksForComponents(silent, { hash: 'aa', components: {} }, true)).to.equal(false);
      const holding = fixture({ over: { capabilities: BigInt(capabilities), availableComponents: held } });
      expect(asksForComponents(holding, undefined, true)).to.equal(false);
    });
  });

  describe('with the running service', () => {
    let app: App;
    before(async () => {
      app = await startApp();
    });
    after(() => app.stop());

    const detail = async (uid: string) =>
      (
        (await (await fetch(`${app.urls.ui}/api/agents/${uid}`)).json()) as {
          available_components: { hash: string; components: Record<string, string[]> } | null;
        }
      ).available_components;

    it('asks a WebSocket agent that sent the hash alone, keeps the list it sends, and shows it', async () => {
      const uid = newUid();
      const ws = await WsAgent.open(app.urls.opamp);
      try {
        const first = await ws.send(
          agentMessage(uid, {
            capabilities,
            agentDescription: description({ 'service.name': 'collector' }),
            availableComponents: onlyHash,
          }),
        );
        expect(asked(first.flags), 'the reply asks for the list').to.equal(true);
        expect(await detail(uid)).to.deep.equal({ hash: 'c0ffee', components: {} });
        const second = await ws.send(
          agentMessage(uid, { capabilities, sequenceNum: 1, availableComponents: whole }),
        );
        expect(asked(second.flags)).to.equal(false);
        const third = await ws.send(
          agentMessage(uid, { capabilities, sequenceNum: 2, availableComponents: onlyHash }),
        );
        expect(asked(third.flags), 'the hash alone of the list held').to.equal(false);
        expect(await detail(uid)).to.deep.equal({
          hash: 'c0ffee',
          components: { exporters: ['debug', 'otlphttp'], receivers: ['hostmetrics', 'otlp'] },
        });
        const page = await (await fetch(`${app.urls.ui}/agents/${uid}`)).text();
        expect(page).to.include('<h2>Available components</h2>');
        expect(page).to.include('<span class="chip">hostmetrics</span>');
      } finally {
        await ws.close();
      }
    });

    it('asks a plain-HTTP agent, and never one that does not declare the capability', async () => {
      const uid = newUid();
      const reply = await postHttp(
        app.urls.opamp,
        agentMessage(uid, { capabilities, availableComponents: onlyHash }),
      );
      expect(asked(reply.message?.flags)).to.equal(true);
      const done = await postHttp(
        app.urls.opamp,
        agentMessage(uid, { capabilities, sequenceNum: 1, availableComponents: whole }),
      );
      expect(asked(done.message?.flags)).to.equal(false);
      const other = newUid();
      const silent = await postHttp(
        app.urls.opamp,
        agentMessage(other, { capabilities: 1, availableComponents: onlyHash }),
      );
      expect(asked(silent.message?.flags)).to.equal(false);
    });

    it('filters the fleet by an available component, in any kind or in one', async () => {
      const [withList, hashOnly] = [newUid(), newUid()];
      await postHttp(app.urls.opamp, agentMessage(withList, { capabilities, availableComponents: whole }));
      await postHttp(app.urls.opamp, agentMessage(hashOnly, { capabilities, availableComponents: onlyHash }));
      const listed = async (query: string) =>
        (
          (await (await fetch(`${app.urls.ui}/api/agents?${query}&limit=1000`)).json()) as {
            agents: { instance_uid: string }[];
          }
        ).agents
          .map((a) => a.instance_uid)
          .filter((uid) => uid === withList || uid === hashOnly);
      expect(await listed('component=otlp')).to.deep.equal([withList]);
      expect(await listed('component=receivers/otlp&component=exporters/debug')).to.deep.equal([withList]);
      expect(await listed('component=exporters/otlp')).to.deep.equal([]);
      const refused = await fetch(`${app.urls.ui}/api/agents?component=receivers/`);
      expect([refused.status, await refused.json()]).to.deep.equal([
        400,
        { error: 'component must be a component type or kind/type, got "receivers/"' },
      ]);
    });
  });
});
