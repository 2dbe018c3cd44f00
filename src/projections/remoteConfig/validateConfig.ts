// What makes a config document acceptable, for every source (the API, the directory): a DNS-label
// name, a selector that parses, a body of at most 1 MiB that parses when its content type says YAML
// (or JSON), and a content type that looks like one. Pure; errors are messages for a 400 or a log.

import { load as loadYaml } from 'js-yaml';
import { parseSelector } from '../filter/selector.ts';
import type { Parsed } from '../filter/matcher.ts';
import { isJson, isYaml, maxConfigBodyBytes, mediaType } from './configBody.ts';

export interface ConfigDocument {
  readonly selector: string;
  readonly body: string;
  readonly contentType: string;
  readonly enabled: boolean;
}

export { isYaml, maxConfigBodyBytes, mediaType };
export const defaultContentType = 'text/yaml';

const namePattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const contentTypePattern = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(?:\s*;.*)?$/;
const utf8 = new TextEncoder();

/** Undefined when the name is a DNS label (lowercase letters, digits, '-', at most 63), else why not. */
export function configNameProblem(name: string): string | undefined {
  if (namePattern.test(name)) return undefined;
  return `config name ${JSON.stringify(name)} must be a DNS label: 1 to 63 lowercase letters, digits or '-', starting and ending with a letter or digit`;
}

function bodyProblem(body: string, contentType: string): string | undefined {
  const bytes = utf8.encode(body).length;
  if (bytes > maxConfigBodyBytes) return `body is ${bytes} bytes; at most ${maxConfigBodyBytes} (1 MiB)`;
  try {
    if (isYaml(contentType)) loadYaml(body);
    else if (isJson(contentType)) JSON.parse(body);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n', 1)[0] : String(error);
    return `body does not parse as ${mediaType(contentType)}: ${reason}`;
  }
  return undefined;
}

export function validateDocument(doc: ConfigDocument): Parsed<ConfigDocument> {
  if (!contentTypePattern.test(doc.contentType) || doc.contentType.length > 255)
    return { ok: false, error: `content_type ${JSON.stringify(doc.contentType)} is not a media type` };
  const selector = parseSelector(doc.selector);
  if (!selector.ok) return selector;
  const body = bodyProblem(doc.body, doc.contentType);
  if (body !== undefined) return { ok: false, error: body };
  return { ok: true, value: doc };
}
