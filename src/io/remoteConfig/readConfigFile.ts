// One file of remote_config.dir: NAME.yaml is the config NAME, a YAML mapping with `selector` and
// `body` (strings) and optional `content_type` (default text/yaml) and `enabled` (default true).
// Pure: text in, a document or the reason it cannot be used out.

import { load as loadYaml } from 'js-yaml';
import type { Parsed } from '../../projections/filter/matcher.ts';
import {
  configNameProblem,
  defaultContentType,
  validateDocument,
  type ConfigDocument,
} from '../../projections/remoteConfig/validateConfig.ts';

export const configFileSuffix = '.yaml';
const knownKeys = new Set(['selector', 'body', 'content_type', 'enabled']);

export const configNameOf = (file: string): string => file.slice(0, -configFileSuffix.length);

export function readConfigFile(file: string, text: string): Parsed<ConfigDocument> {
  const nameProblem = configNameProblem(configNameOf(file));
  if (nameProblem !== undefined) return { ok: false, error: `${file}: ${nameProblem}` };
  let parsed: unknown;
  try {
    parsed = loadYaml(text);
  } catch (error) {
    return { ok: false, error: `${file} is not valid YAML: ${(error as Error).message.split('\n', 1)[0]}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { ok: false, error: `${file} must be a YAML mapping with selector and body` };
  const fields = parsed as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => !knownKeys.has(k));
  if (unknown.length > 0) return { ok: false, error: `${file}: unknown key(s) ${unknown.join(', ')}` };
  const { selector, body, content_type: contentType = defaultContentType, enabled = true } = fields;
  if (typeof selector !== 'string') return { ok: false, error: `${file}: selector must be a string` };
  if (typeof body !== 'string') return { ok: false, error: `${file}: body must be a string` };
  if (typeof contentType !== 'string') return { ok: false, error: `${file}: content_type must be a string` };
  if (typeof enabled !== 'boolean') return { ok: false, error: `${file}: enabled must be true or false` };
  const valid = validateDocument({ selector, body, contentType, enabled });
  return valid.ok ? valid : { ok: false, error: `${file}: ${valid.error}` };
}
