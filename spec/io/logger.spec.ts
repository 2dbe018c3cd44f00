// The logger's net under "config bodies and secrets are never logged": fields named after secrets
// or bodies are censored, at the top of a log record and one level down, in both formats.

import { expect } from 'chai';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/io/logger.ts';

function written(format: 'json' | 'text', record: object): string {
  let text = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  createLogger({ level: 'info', format, destination }).info(record, 'record');
  return text;
}

describe('the logger', () => {
  for (const format of ['json', 'text'] as const)
    it(`censors secret and body fields (${format})`, () => {
      const text = written(format, {
        token: 'zz-1',
        client_secret: 'zz-2',
        agent: { authorization: 'zz-3', effective_config: 'zz-4', body: 'zz-5' },
        headers: { authorization: 'zz-6' },
        config: 'kept-name',
      });
      expect(text).to.not.include('zz-');
      expect(text).to.include('[redacted]').and.include('kept-name');
    });
});
