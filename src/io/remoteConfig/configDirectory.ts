// Remote configs from a directory (remote_config.dir): the GitOps path. Each NAME.yaml is one config
// (readConfigFile.ts). The directory is read at start, again whenever it changes (fs.watch), and at
// least every `rescanMs` in case a change notice is missed (network and container file systems).
// A file whose content changed becomes a new revision in force; a file that does not parse is
// reported (log, RemoteConfigRejected → metric, the configs page) and leaves the last good version
// of that config in force; a removed file removes its config. Every timer (the notices' debounce,
// the rescan) runs on the injected scheduler, so specs drive them in virtual time. With a directory the API cannot write:
// the files are the only source. History lives in memory (the repository holding the files keeps
// the real one); revision numbers count changes seen by this process.

import { watch } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SchedulerLike, Subscription } from 'rxjs';
import type { ConfigRevisionRecord } from '../../events/configData.ts';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import type {
  ConfigCatalog,
  ConfigProblem,
  ConfigSummary,
  WriteOutcome,
} from '../../projections/remoteConfig/configCatalog.ts';
import { bodyHashOf } from '../../projections/remoteConfig/desiredConfig.ts';
import type { ConfigDocument } from '../../projections/remoteConfig/validateConfig.ts';
import type { Logger } from '../logger.ts';
import { configFileSuffix, configNameOf, readConfigFile } from './readConfigFile.ts';

export interface ConfigDirectoryDeps {
  readonly dir: string;
  readonly publish: (event: FleetEvent) => void;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  /** Full rescan interval; default 5 s. */
  readonly rescanMs?: number;
  /** Calls `onChange` when something in `dir` changes; returns how to stop. Default: fs.watch. */
  readonly watch?: (dir: string, onChange: () => void, logger: Logger) => () => void;
}

/** Change notices from the file system (inotify and the like), never keeping the process up. */
export function watchDirectory(dir: string, onChange: () => void, logger: Logger): () => void {
  const watcher = watch(dir, { persistent: false }, onChange);
  watcher.on('error', (error) => logger.warn({ err: error, dir }, 'remote config directory watch failed'));
  return () => watcher.close();
}

/** A burst of change notices (an editor's save, a git checkout) makes one scan this long after. */
const debounceMs = 100;

export interface ConfigDirectory extends ConfigCatalog {
  /** Reads the directory; rejects when it cannot be read at all (startup stops, naming the key). */
  start(): Promise<void>;
  /** Reads the directory now (also what change notices and the timer do). */
  scan(): Promise<void>;
  /** When the latest scan started (scheduler time), or undefined before the first. */
  lastScanAt(): number | undefined;
  stop(): void;
}

interface FileState {
  /** Newest last. */
  readonly history: ConfigRevisionRecord[];
}

const sameDocument = (r: ConfigRevisionRecord, d: ConfigDocument): boolean =>
  r.selector === d.selector &&
  r.body === d.body &&
  r.contentType === d.contentType &&
  r.enabled === d.enabled;

function summaryOf(name: string, history: readonly ConfigRevisionRecord[]): ConfigSummary {
  const latest = history.at(-1)!;
  return { name, current: latest, latest, updatedAt: latest.createdAt };
}

export function createConfigDirectory(deps: ConfigDirectoryDeps): ConfigDirectory {
  const { dir, logger, scheduler } = deps;
  const now = () => scheduler.now();
  const files = new Map<string, FileState>();
  const problems = new Map<string, ConfigProblem>();
  let scanning: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  let unwatch: (() => void) | undefined;
  let timer: Subscription | undefined;
  let debounce: Subscription | undefined;
  let lastScanAt: number | undefined;
  const readOnly = {
    status: 409 as const,
    reason: `configs are read from remote_config.dir (${dir}): change the files there, not through the API`,
  };

  function reject(name: string, file: string, error: string): void {
    const known = problems.get(name);
    if (known?.error === error) return;
    problems.set(name, { name, source: file, error, at: now() });
    deps.publish({ type: 'RemoteConfigRejected', at: now(), data: { name, source: file, error } });
  }

  function accept(name: string, file: string, document: ConfigDocument, state: FileState): void {
    problems.delete(name);
    const latest = state.history.at(-1);
    if (latest !== undefined && sameDocument(latest, document)) return;
    const record: ConfigRevisionRecord = {
      name,
      revision: (latest?.revision ?? 0) + 1,
      ...document,
      bodyHash: bodyHashOf(document.body),
      author: `file:${file}`,
      createdAt: now(),
      draft: false,
      restoredFrom: null,
    };
    state.history.push(record);
    const { author: _a, createdAt: _c, draft: _d, restoredFrom: _r, ...config } = record;
    deps.publish({ type: 'RemoteConfigChanged', at: record.createdAt, data: { config } });
  }

  async function readOne(file: string): Promise<void> {
    const name = configNameOf(file);
    const path = join(dir, file);
    if (!(await stat(path)).isFile()) return;
    // Read every time (modification times are too coarse on some file systems to trust); an
    // unchanged document makes no revision.
    const parsed = readConfigFile(file, await readFile(path, 'utf8'));
    const state = files.get(name) ?? { history: [] };
    if (!parsed.ok) {
      if (state.history.length > 0) files.set(name, state);
      reject(name, file, parsed.error);
      return;
    }
    files.set(name, state);
    accept(name, file, parsed.value, state);
  }

  async function scanOnce(): Promise<void> {
    lastScanAt = now();
    const present = (await readdir(dir)).filter((f) => f.endsWith(configFileSuffix));
    const names = new Set(present.map(configNameOf));
    for (const file of present) {
      try {
        await readOne(file);
      } catch (error) {
        // Removed between readdir and read, or unreadable: try again on the next scan.
        logger.warn({ err: error, file }, 'remote config file could not be read');
      }
    }
    for (const name of [...files.keys()]) {
      if (names.has(name)) continue;
      files.delete(name);
      deps.publish({ type: 'RemoteConfigRemoved', at: now(), data: { name } });
    }
    for (const name of [...problems.keys()]) if (!names.has(name)) problems.delete(name);
  }

  /**
   * Guarded: never two scans at once. A request during a scan gets one more scan right after it
   * (shared by every request made meanwhile) and resolves when that one is done, so a caller always
   * waits for a scan that started after its call.
   */
  function scan(): Promise<void> {
    if (scanning === undefined) {
      scanning = scanOnce()
        .catch((error: unknown) =>
          logger.error({ err: error, dir }, 'remote config directory could not be read'),
        )
        .finally(() => {
          scanning = undefined;
        });
      return scanning;
    }
    next ??= scanning.then(() => {
      next = undefined;
      return scan();
    });
    return next;
  }

  const unknownName = (name: string): WriteOutcome => ({
    ok: false,
    status: 404,
    error: `no config ${name}`,
  });
  const refused = (): Promise<WriteOutcome> =>
    Promise.resolve({ ok: false, status: readOnly.status, error: readOnly.reason });

  return {
    source: 'directory',
    readOnly,
    async start() {
      const info = await stat(dir).catch((error: NodeJS.ErrnoException) => {
        throw new Error(`remote_config.dir: cannot read ${dir} (${error.code ?? error.message})`);
      });
      if (!info.isDirectory()) throw new Error(`remote_config.dir: ${dir} is not a directory`);
      await scanOnce();
      unwatch = (deps.watch ?? watchDirectory)(
        dir,
        () => {
          debounce?.unsubscribe();
          debounce = scheduler.schedule(() => void scan(), debounceMs);
        },
        logger,
      );
      const rescanMs = deps.rescanMs ?? 5000;
      timer = scheduler.schedule(function rescan() {
        void scan();
        this.schedule(undefined, rescanMs);
      }, rescanMs);
    },
    scan,
    lastScanAt: () => lastScanAt,
    stop() {
      unwatch?.();
      timer?.unsubscribe();
      debounce?.unsubscribe();
    },
    list: () =>
      Promise.resolve(
        [...files.entries()]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([name, state]) => summaryOf(name, state.history)),
      ),
    get: (name) => {
      const state = files.get(name);
      return Promise.resolve(state && summaryOf(name, state.history));
    },
    revisions: (name) => Promise.resolve(files.get(name)?.history.toReversed()),
    revision: (name, revision) =>
      Promise.resolve(files.get(name)?.history.find((r) => r.revision === revision)),
    create: refused,
    update: refused,
    restore: (name) => (files.has(name) ? refused() : Promise.resolve(unknownName(name))),
    remove: (name) => (files.has(name) ? refused() : Promise.resolve(unknownName(name))),
    problems: () => [...problems.values()].sort((a, b) => b.at - a.at),
  };
}
