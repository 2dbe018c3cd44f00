import { expect } from 'chai';
import type { AgentDescription } from '../../../src/events/agentData.ts';
import { parseSelector, type Selector } from '../../../src/projections/filter/selector.ts';
import { outsideScope } from '../../../src/projections/identity/tokenScope.ts';

const selector = (text: string): Selector => {
  const parsed = parseSelector(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};
const described = (identifying: Record<string, string>, nonIdentifying: Record<string, string> = {}) =>
  ({ identifying, nonIdentifying }) as AgentDescription;

describe("an enrollment token's selector", () => {
  const prodCollectors = selector('env=prod, service.name=~"otelcol.*"');

  it('admits a description every matcher holds for, identifying or not', () => {
    const inside = described({ 'service.name': 'otelcol-contrib' }, { env: 'prod' });
    expect(outsideScope(prodCollectors, inside)).to.equal(undefined);
  });

  it('refuses a description that breaks one matcher or lacks its key, naming the selector', () => {
    expect(outsideScope(prodCollectors, described({ 'service.name': 'otelcol' }, { env: 'dev' }))).to.equal(
      `description does not match the token's selector env=prod, service.name=~"otelcol.*"`,
    );
    expect(outsideScope(prodCollectors, described({ env: 'prod' }))).to.be.a('string');
  });

  it('reads identifying attributes first, as config selectors do', () => {
    expect(outsideScope(selector('env=prod'), described({ env: 'prod' }, { env: 'dev' }))).to.equal(
      undefined,
    );
  });

  it('admits nothing with an empty selector', () => {
    expect(outsideScope(selector(''), described({ env: 'prod' }))).to.match(/admits no description/);
  });
});
