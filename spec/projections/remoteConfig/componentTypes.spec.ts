// Which component types a Collector config names, and which of them an agent lacks.

import { expect } from 'chai';
import { dump } from 'js-yaml';
import {
  componentTypesOf,
  componentTypesOfDesired,
  describeMissing,
  incompatibility,
  missingTypes,
} from '../../../src/projections/remoteConfig/componentTypes.ts';
import { composeDesired } from '../../../src/projections/remoteConfig/desiredConfig.ts';
import { maxConfigBodyBytes } from '../../../src/projections/remoteConfig/validateConfig.ts';

const collector = {
  receivers: ['nop', 'otlp'],
  processors: ['batch', 'memory_limiter'],
  exporters: ['debug', 'nop'],
  extensions: ['opamp'],
  connectors: [],
};
const yaml = 'text/yaml';

describe('the component types a config names', () => {
  it('reads the type of every component id (`type` or `type/name`) in the five sections', () => {
    const body = dump({
      receivers: { otlp: {}, 'otlp/2': {}, 'filelog/app': {} },
      processors: { batch: null },
      exporters: { 'otlphttp/eu': {}, debug: {} },
      extensions: { health_check: {} },
      connectors: { 'count/errors': {} },
      service: { pipelines: { 'logs/x': { receivers: ['filelog/app'], exporters: ['count/errors'] } } },
    });
    expect(componentTypesOf(body, yaml)).to.deep.equal({
      receivers: ['filelog', 'otlp'],
      processors: ['batch'],
      exporters: ['debug', 'otlphttp'],
      extensions: ['health_check'],
      connectors: ['count'],
    });
  });

  it('reads JSON bodies, and names nothing in bodies it cannot read', () => {
    expect(componentTypesOf('{"exporters":{"kafka":{}}}', 'application/json')).to.deep.equal({
      exporters: ['kafka'],
    });
    expect(componentTypesOf('exporters: {kafka: {}}', 'text/plain')).to.deep.equal({});
    expect(componentTypesOf('exporters: [unclosed', yaml)).to.deep.equal({});
    expect(componentTypesOf('- a list', yaml)).to.deep.equal({});
    expect(componentTypesOf('exporters: [kafka]', yaml)).to.deep.equal({});
  });

  it('does not judge keys that are not component types (substitutions)', () => {
    expect(componentTypesOf('exporters: {"${env:EXPORTER}": {}, "/x": {}, debug: {}}', yaml)).to.deep.equal({
      exporters: ['debug'],
    });
  });

  it('names nothing in a body over the size limit, and reads only two levels of a hostile one', () => {
    const huge = `exporters: {kafka: {}}\n#${'x'.repeat(maxConfigBodyBytes)}`;
    expect(componentTypesOf(huge, yaml)).to.deep.equal({});
    const aliases = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 20; i++)
      aliases.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [*${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}]`,
      );
    const laughs = `${aliases.join('\n')}\nexporters: {kafka: *t}\n`;
    expect(componentTypesOf(laughs, yaml)).to.deep.equal({ exporters: ['kafka'] });
  });

  it('unites the entries of a config map', () => {
    const desired = composeDesired([
      { name: 'a', revision: 1, body: 'receivers: {otlp: {}}', contentType: yaml },
      {
        name: 'b',
        revision: 1,
        body: 'receivers: {otlp/2: {}, kafka: {}}\nexporters: {debug: {}}',
        contentType: yaml,
      },
    ])!;
    expect(componentTypesOfDesired(desired)).to.deep.equal({
      receivers: ['kafka', 'otlp'],
      exporters: ['debug'],
    });
  });
});

describe('what an agent lacks to run a config', () => {
  it('lists the missing types per kind, only among the kinds the agent reported', () => {
    const named = { receivers: ['kafka', 'otlp'], exporters: ['debug'], connectors: ['count'], other: ['x'] };
    expect(missingTypes(named, collector)).to.deep.equal({ receivers: ['kafka'], connectors: ['count'] });
    expect(describeMissing(missingTypes(named, collector))).to.equal('receivers/kafka, connectors/count');
    expect(missingTypes({ receivers: ['otlp'] }, collector)).to.deep.equal({});
  });

  it('judges only agents that reported their whole list', () => {
    const desired = composeDesired([
      { name: 'a', revision: 1, body: 'exporters: {kafka: {}}', contentType: yaml },
    ])!;
    expect(incompatibility({ hash: 'ab', components: collector }, desired)).to.deep.equal({
      exporters: ['kafka'],
    });
    expect(incompatibility({ hash: 'ab', components: {} }, desired)).to.equal(undefined);
    expect(incompatibility(null, desired)).to.equal(undefined);
  });
});
