// The config catalog port (STYLE 20): what the API and the pages need from wherever configs live,
// declared here in the core and implemented by the edges: the database (src/persistence/configs),
// a directory of files (src/io/remoteConfig), or nothing. Whatever the source, what agents receive
// reaches the desired-config projection as RemoteConfigChanged/Removed events; the catalog is
// history and writes.

import type { ConfigRevisionRecord, ConfigSource } from '../../events/configData.ts';
import type { ConfigDocument } from './validateConfig.ts';

export interface ConfigSummary {
  readonly name: string;
  /** The revision agents receive; null when none does (created as a draft). */
  readonly current: ConfigRevisionRecord | null;
  /** The newest revision: a draft when it is newer than `current`. */
  readonly latest: ConfigRevisionRecord;
  /** Unix ms of the last write. */
  readonly updatedAt: number;
}

export interface ConfigWrite {
  readonly document: ConfigDocument;
  /** Stored and listed, distributed to nobody until made current. */
  readonly draft: boolean;
  readonly author: string;
}

export type WriteOutcome =
  | { readonly ok: true; readonly config: ConfigSummary }
  | {
      readonly ok: false;
      /** 404 unknown name, 409 a conflicting write or a read-only source, 503 no source at all. */
      readonly status: 404 | 409 | 503;
      readonly error: string;
      /** The newest revision, when the write lost a race (409). */
      readonly latestRevision?: number;
    };

/** A source entry that cannot be used right now (for example a file that does not parse). */
export interface ConfigProblem {
  readonly name: string;
  readonly source: string;
  readonly error: string;
  /** Unix ms. */
  readonly at: number;
}

export interface ConfigCatalog {
  readonly source: ConfigSource;
  /** Why writes are refused (409 or 503), or undefined when the catalog takes writes. */
  readonly readOnly: { readonly status: 409 | 503; readonly reason: string } | undefined;
  list(): Promise<ConfigSummary[]>;
  get(name: string): Promise<ConfigSummary | undefined>;
  /** Every revision, newest first; undefined for an unknown name. */
  revisions(name: string): Promise<ConfigRevisionRecord[] | undefined>;
  revision(name: string, revision: number): Promise<ConfigRevisionRecord | undefined>;
  create(name: string, write: ConfigWrite): Promise<WriteOutcome>;
  /** A new revision; refused (409) unless `baseRevision` is still the newest. */
  update(name: string, write: ConfigWrite, baseRevision: number): Promise<WriteOutcome>;
  /** A new current revision with the content of `revision`. */
  restore(
    name: string,
    revision: number,
    author: string,
    baseRevision: number | undefined,
  ): Promise<WriteOutcome>;
  remove(name: string, author: string, baseRevision: number | undefined): Promise<WriteOutcome>;
  problems(): readonly ConfigProblem[];
}
