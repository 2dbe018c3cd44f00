// The redaction property (docs/security.md "Reads and redaction"): in a random YAML or JSON config,
// no value planted under a secret key (nor a URL's password) is shown to a viewer, and every value
// planted elsewhere is. `npm run fuzz` (FUZZ_RUNS=20000) tries that many configs, `npm test` a few.

import { expect } from 'chai';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { redactSecrets } from '../../src/web/views/redactSecrets.ts';
import { plantedConfig } from './plantedConfig.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 200);
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const params = { numRuns: runs, ...(seed === undefined ? {} : { seed }) };

describe('redaction fuzz', () => {
  it('shows no planted secret and keeps every planted ordinary value', () => {
    fc.assert(
      fc.property(plantedConfig, ({ text, secrets, kept }) => {
        const shown = redactSecrets(text).text;
        // Values as a reader of the shown text gets them (a scalar may be folded over lines).
        const docs = parseAllDocuments(shown, { uniqueKeys: false });
        expect(docs.flatMap((d) => d.errors).map(String), shown).to.deep.equal([]);
        const values = JSON.stringify(docs.map((d) => d.toJS({ maxAliasCount: -1 }) as unknown));
        for (const s of secrets) expect(shown + values, text).to.not.include(s);
        for (const k of kept) expect(values, `${text}\n---\n${shown}`).to.include(k);
        expect(shown.split('\n').length, text).to.equal(text.split('\n').length);
      }),
      params,
    );
  });
});
