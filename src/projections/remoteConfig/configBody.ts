// What a config body may be and how its content type is read (validateConfig.ts checks bodies with
// these; componentTypes.ts reads them). Pure, and free of the selector so both can import it.

export const maxConfigBodyBytes = 1024 * 1024;

const yamlTypes = new Set(['text/yaml', 'application/yaml', 'application/x-yaml', 'text/x-yaml']);
const jsonTypes = new Set(['application/json', 'text/json']);

/** The media type without parameters, lower-cased (`text/yaml; charset=utf-8` → `text/yaml`). */
export const mediaType = (contentType: string): string =>
  (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();

export const isYaml = (contentType: string): boolean => yamlTypes.has(mediaType(contentType));
export const isJson = (contentType: string): boolean => jsonTypes.has(mediaType(contentType));
