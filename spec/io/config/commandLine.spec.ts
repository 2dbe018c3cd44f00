import { expect } from 'chai';
import { readStringFlags } from '../../../src/io/config/commandLine.ts';

describe('command-line flags', () => {
  for (const argv of [
    ['-config', 'a.yaml'],
    ['-config=a.yaml'],
    ['--config', 'a.yaml'],
    ['--config=a.yaml'],
  ]) {
    it(`reads ${argv.join(' ')}`, () => {
      expect(readStringFlags(argv, ['config', 'record'])).to.deep.equal({ config: 'a.yaml' });
    });
  }

  it('reads several flags', () => {
    expect(readStringFlags(['-record', 'r.bin', '-config', 'c.yaml'], ['config', 'record'])).to.deep.equal({
      config: 'c.yaml',
      record: 'r.bin',
    });
  });

  it('refuses unknown flags and missing values', () => {
    expect(() => readStringFlags(['-verbose'], ['config'])).to.throw();
    expect(() => readStringFlags(['-config'], ['config'])).to.throw();
  });
});
