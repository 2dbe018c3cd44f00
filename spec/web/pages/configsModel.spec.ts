import { expect } from 'chai';
import type { ConfigSummary } from '../../../src/projections/remoteConfig/configCatalog.ts';
import { configRow, sourceLocals } from '../../../src/web/pages/configsModel.ts';
import { revision } from './configFixture.ts';

const summary = (
  current: ReturnType<typeof revision> | null,
  latest: ReturnType<typeof revision>,
): ConfigSummary => ({
  name: 'base',
  current,
  latest,
  updatedAt: latest.createdAt,
});

describe('configs list rows', () => {
  it('marks a newer draft beside the revision in force and credits its author', () => {
    const row = configRow(summary(revision(2), revision(3, { draft: true, author: 'alice' })), undefined);
    expect(row).to.include({
      current_revision: 2,
      draft_revision: 3,
      updated_by: 'alice',
      href: '/configs/base',
    });
  });

  it('shows a config made only of drafts as having no revision in force', () => {
    const row = configRow(summary(null, revision(1, { draft: true })), undefined);
    expect(row).to.include({ current_revision: null, draft_revision: 1 });
  });

  it('links each non-zero count to the config page filtered to that state', () => {
    const counts = {
      targeted: 3,
      pending: 0,
      applying: 0,
      applied: 2,
      failed: 1,
      rolled_back: 0,
      incompatible: 0,
      unsupported: 0,
    };
    const row = configRow(summary(revision(1), revision(1)), counts);
    expect(row.targetedHref).to.equal('/configs/base#agents');
    expect(row.cells.map((c) => [c.state, c.value, c.href])).to.deep.equal([
      ['pending', 0, ''],
      ['applying', 0, ''],
      ['applied', 2, '/configs/base?config_state=applied#agents'],
      ['failed', 1, '/configs/base?config_state=failed#agents'],
      ['rolled_back', 0, ''],
      ['incompatible', 0, ''],
      ['unsupported', 0, ''],
    ]);
  });

  it('encodes the name in its links', () => {
    const row = configRow({ ...summary(revision(1), revision(1)), name: 'a b' }, undefined);
    expect(row.href).to.equal('/configs/a%20b');
  });

  it('says how the source takes writes, or why it does not', () => {
    expect(sourceLocals({ source: 'database', readOnly: undefined })).to.include({
      writable: true,
      reason: '',
    });
    const dir = sourceLocals({ source: 'directory', readOnly: { status: 409, reason: 'read from files' } });
    expect(dir).to.include({ label: 'Directory', writable: false, reason: 'read from files' });
  });
});
