// Loading order (SPEC "Configuration"): built-in defaults, the YAML file named by -config, SVC_
// environment variables, then validation listing every problem at once. The only module that reads
// process.env is this one (through the `env` argument that main passes in).

import { readFileSync } from 'node:fs';
import { load as loadYaml } from 'js-yaml';
import { configSchema, type Config } from './schema.ts';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.problems = problems;
  }
}

type Tree = Record<string, unknown>;

interface Described {
  readonly keys?: Record<string, Described>;
}

/** Every leaf key path of the schema, e.g. ['fleet', 'heartbeat_interval'], ['agents', 'ca', 'cert_file']. */
function leafPaths(described = configSchema.describe() as Described, prefix: string[] = []): string[][] {
  const paths: string[][] = [];
  for (const [key, child] of Object.entries(described.keys ?? {})) {
    const path = [...prefix, key];
    if (child.keys !== undefined) paths.push(...leafPaths(child, path));
    else if (prefix.length > 0) paths.push(path);
  }
  return paths;
}

const envName = (path: string[]): string => `SVC_${path.join('_').toUpperCase()}`;

/** Environment variables that belong to the project but are not configuration keys. */
const nonConfigEnv = /^SVC_(TEST|BUILD|BENCH)_/;

function envValue(path: string[], text: string): unknown {
  const key = path.join('.');
  if (key === 'fleet.required_attributes')
    return text
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (
    key === 'auth.role_mapping' ||
    key === 'auth.api_tokens' ||
    key === 'agents.tokens' ||
    key === 'auth.oidc.role_mapping' ||
    key === 'auth.oidc.scopes'
  )
    return loadYaml(text);
  return text;
}

function overlayEnv(tree: Tree, env: Readonly<Record<string, string | undefined>>, problems: string[]): void {
  const byName = new Map(leafPaths().map((p) => [envName(p), p]));
  for (const [name, text] of Object.entries(env)) {
    if (!name.startsWith('SVC_') || text === undefined || nonConfigEnv.test(name)) continue;
    const path = byName.get(name);
    if (path === undefined) {
      problems.push(`unknown environment variable ${name}`);
      continue;
    }
    let parent = tree;
    for (const key of path.slice(0, -1)) parent = (parent[key] ??= {}) as Tree;
    try {
      parent[path.at(-1)!] = envValue(path, text);
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
    }
  }
}

function readYaml(file: string): Tree {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError([
      `cannot read config file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    ]);
  }
  // An empty file (or one with only comments) means defaults.
  if (text.split('\n').every((line) => /^\s*(#.*)?$/.test(line))) return {};
  let parsed: unknown;
  try {
    parsed = loadYaml(text);
  } catch (error) {
    throw new ConfigError([`config file ${file} is not valid YAML: ${(error as Error).message}`]);
  }
  if (parsed === undefined || parsed === null) return {}; // an empty file means defaults
  if (typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ConfigError([`config file ${file} must hold a mapping of keys`]);
  return parsed as Tree;
}

export interface ConfigSources {
  readonly file?: string | undefined;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Values that override everything else (tests, command-line flags). */
  readonly overrides?: Tree;
}

function merge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] =
      v !== null &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      b !== null &&
      typeof b === 'object' &&
      !Array.isArray(b)
        ? merge(b as Tree, v as Tree)
        : v;
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Builds the frozen configuration, or throws ConfigError naming every problem. */
export function loadConfig(sources: ConfigSources = {}): Config {
  const problems: string[] = [];
  let tree: Tree = sources.file ? readYaml(sources.file) : {};
  if (sources.env) overlayEnv(tree, sources.env, problems);
  if (sources.overrides) tree = merge(tree, sources.overrides);
  const result = configSchema.validate(tree, { abortEarly: false, convert: true });
  if (result.error) for (const d of result.error.details) problems.push(d.message.replaceAll('"', ''));
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(result.value as Config);
}
