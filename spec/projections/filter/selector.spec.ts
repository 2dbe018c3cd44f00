import { expect } from 'chai';
import { parseSelector, selects, splitSelector } from '../../../src/projections/filter/selector.ts';
import { agent } from '../../support/agentFixture.ts';

const otel = agent({ identifying: { 'service.name': 'otelcol-contrib' }, nonIdentifying: { env: 'prod' } });
const selector = (text: string) => {
  const parsed = parseSelector(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};

describe('config selectors', () => {
  it('splits on commas outside quoted values', () => {
    expect(splitSelector('a=1, b=~"x,y" , c!=\'p, q\',d!~z')).to.deep.equal([
      'a=1',
      ' b=~"x,y" ',
      " c!='p, q'",
      'd!~z',
    ]);
    expect(splitSelector(' , a=1,')).to.deep.equal([' a=1']);
  });

  it('matches an agent only when every matcher holds', () => {
    expect(selects(selector('service.name=~"otelcol.*", env=prod'), otel)).to.equal(true);
    expect(selects(selector('service.name=~"otelcol.*", env=staging'), otel)).to.equal(false);
    expect(selects(selector('region!=eu'), otel)).to.equal(true);
  });

  it('matches no agent when empty, and never an agent without a description', () => {
    expect(selects(selector(''), otel)).to.equal(false);
    expect(selects(selector('  '), otel)).to.equal(false);
    expect(selects(selector('region!=eu'), agent({ undescribed: true }))).to.equal(false);
  });

  it('refuses a matcher without an operator, a bad regex and an unterminated quote', () => {
    for (const bad of ['env', 'a=~"(", \'b="x']) {
      const parsed = parseSelector(bad);
      expect(parsed.ok, bad).to.equal(false);
    }
    const parsed = parseSelector('a=~"("');
    expect(parsed.ok === false && parsed.error).to.match(/^selector: invalid regex/);
  });

  it('reads a quote inside a quoted regex as part of it, not as an unterminated quote', () => {
    const parsed = parseSelector(`service.name=~"otel's.*", env=prod`);
    expect(parsed.ok && parsed.value.matchers.map((m) => m.value)).to.deep.equal(["otel's.*", 'prod']);
  });

  it('refuses a status field, pointing at it: what an agent runs must not follow its health', () => {
    const parsed = parseSelector('env=prod, healthy=true');
    expect(parsed.ok).to.equal(false);
    expect(!parsed.ok && parsed.error).to.match(/healthy is an agent's status.*\(at character 11\)/);
    expect(!parsed.ok && parsed.at).to.equal(10);
  });
});
