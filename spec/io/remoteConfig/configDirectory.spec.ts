import { expect } from 'chai';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import {
  createConfigDirectory,
  watchDirectory,
  type ConfigDirectory,
} from '../../../src/io/remoteConfig/configDirectory.ts';
import { readConfigFile } from '../../../src/io/remoteConfig/readConfigFile.ts';
import { eventually } from '../../persistence/eventually.ts';
import { VirtualClock } from '../../support/virtualTime.ts';

const yaml = (selector: string, body: string, extra = '') =>
  `selector: '${selector}'\nbody: |\n${body
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n')}\n${extra}`;

describe('remote config files', () => {
  it('reads NAME.yaml with its defaults, and refuses what cannot be used', () => {
    expect(readConfigFile('base.yaml', yaml('env=prod', 'a: 1'))).to.deep.equal({
      ok: true,
      value: { selector: 'env=prod', body: 'a: 1\n', contentType: 'text/yaml', enabled: true },
    });
    const problems = [
      ['Base.yaml', yaml('env=prod', 'a: 1'), 'DNS label'],
      ['base.yaml', 'selector: [', 'not valid YAML'],
      ['base.yaml', '- a\n- b\n', 'mapping'],
      ['base.yaml', 'selector: env=prod\n', 'body must be a string'],
      ['base.yaml', yaml('env=prod', 'a: 1', 'colour: red\n'), 'unknown key(s) colour'],
      ['base.yaml', yaml('env=prod', 'a: [1,'), 'body does not parse as text/yaml'],
      ['base.yaml', yaml('env', 'a: 1'), 'no operator'],
    ] as const;
    for (const [file, text, message] of problems) {
      const read = readConfigFile(file, text);
      expect(read.ok, message).to.equal(false);
      expect(!read.ok && read.error).to.include(message);
    }
  });

  describe('the directory', () => {
    let dir: string;
    let events: FleetEvent[];
    let source: ConfigDirectory;
    let clock: VirtualClock;
    /** Fires a change notice, as the file system would. */
    let notice: () => void;
    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'svc-configs-'));
      writeFileSync(join(dir, 'base.yaml'), yaml('env=prod', 'a: 1'));
      writeFileSync(join(dir, 'notes.txt'), 'not a config');
      events = [];
      clock = new VirtualClock(1000);
      source = createConfigDirectory({
        dir,
        publish: (e) => events.push(e),
        scheduler: clock.scheduler,
        logger: silentLogger(),
        watch: (_dir, onChange) => {
          notice = onChange;
          return () => undefined;
        },
      });
      await source.start();
    });
    afterEach(() => {
      source.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    const types = () => events.map((e) => e.type);

    it('puts every NAME.yaml in force at start', async () => {
      expect(types()).to.deep.equal(['RemoteConfigChanged']);
      expect(events[0]).to.deep.include({ at: 1000 });
      const [summary] = await source.list();
      expect(summary?.current).to.include({
        name: 'base',
        revision: 1,
        author: 'file:base.yaml',
        draft: false,
      });
    });

    it('makes a changed file a new revision, and keeps the last good one when a file stops parsing', async () => {
      clock.advance(1000);
      writeFileSync(join(dir, 'base.yaml'), yaml('env=prod', 'a: 2'));
      await source.scan();
      expect(types()).to.deep.equal(['RemoteConfigChanged', 'RemoteConfigChanged']);
      writeFileSync(join(dir, 'base.yaml'), 'selector: [');
      await source.scan();
      expect(types().at(-1)).to.equal('RemoteConfigRejected');
      expect((await source.get('base'))?.current?.body).to.equal('a: 2\n');
      expect(source.problems()).to.have.length(1);
      await source.scan();
      expect(events, 'a problem is reported once').to.have.length(3);
      expect((await source.revisions('base'))?.map((r) => r.revision)).to.deep.equal([2, 1]);
    });

    it('removes the config of a removed file', async () => {
      unlinkSync(join(dir, 'base.yaml'));
      await source.scan();
      expect(events.at(-1)).to.deep.include({ type: 'RemoteConfigRemoved', data: { name: 'base' } });
      expect(await source.list()).to.deep.equal([]);
    });

    it('answers a scan asked for during another one only after a scan that started later', async () => {
      const first = source.scan();
      writeFileSync(join(dir, 'more.yaml'), yaml('env=staging', 'b: 1'));
      const second = source.scan();
      expect(source.scan(), 'requests made meanwhile share the follow-up scan').to.equal(second);
      await second;
      expect((await source.list()).map((s) => s.name)).to.deep.equal(['base', 'more']);
      await first;
    });

    it('rescans every rescanMs on its scheduler, noticing what no notice announced', async () => {
      writeFileSync(join(dir, 'more.yaml'), yaml('env=staging', 'b: 1'));
      clock.advance(4999);
      expect(source.lastScanAt(), 'no scan before the interval').to.equal(1000);
      clock.advance(1);
      expect(source.lastScanAt()).to.equal(6000);
      await eventually(() => Promise.resolve(events.length === 2), 'the new file to be read');
      expect(events[1]).to.deep.include({ type: 'RemoteConfigChanged', at: 6000 });
      clock.advance(5000);
      expect(source.lastScanAt(), 'and again').to.equal(11_000);
    });

    it('scans once, 100 ms after the last of a burst of change notices', async () => {
      writeFileSync(join(dir, 'more.yaml'), yaml('env=staging', 'b: 1'));
      notice();
      clock.advance(60);
      notice();
      clock.advance(99);
      expect(source.lastScanAt(), 'the burst is not over').to.equal(1000);
      clock.advance(1);
      expect(source.lastScanAt()).to.equal(1160);
      await eventually(() => Promise.resolve(events.length === 2), 'the new file to be read');
    });

    it('stops its timers on stop', () => {
      notice();
      source.stop();
      clock.advance(60_000);
      expect(source.lastScanAt()).to.equal(1000);
    });

    it('refuses writes through the API with 409, naming the directory', async () => {
      const write = {
        document: { selector: 'a=b', body: '', contentType: 'text/yaml', enabled: true },
        draft: false,
        author: 'x',
      };
      const outcome = await source.create('other', write);
      expect(outcome).to.deep.include({ ok: false, status: 409 });
      expect(!outcome.ok && outcome.error).to.include(dir);
    });
  });

  it('hears of a change in the directory from the file system', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-configs-'));
    let notices = 0;
    const stop = watchDirectory(dir, () => (notices += 1), silentLogger());
    try {
      writeFileSync(join(dir, 'base.yaml'), yaml('env=prod', 'a: 1'));
      await eventually(() => Promise.resolve(notices > 0), 'a change notice');
    } finally {
      stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops startup when the directory cannot be read', async () => {
    const source = createConfigDirectory({
      dir: '/nonexistent/configs',
      publish: () => undefined,
      scheduler: new VirtualClock().scheduler,
      logger: silentLogger(),
    });
    let error: unknown;
    await source.start().catch((e: unknown) => (error = e));
    expect(String(error)).to.include('remote_config.dir: cannot read /nonexistent/configs');
  });
});
