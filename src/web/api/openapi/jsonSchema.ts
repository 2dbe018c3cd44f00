// Tiny builders for the JSON Schema 2020-12 of the OpenAPI 3.1 document, so the schemas read like
// the views they describe. Every object is closed (additionalProperties: false) unless it is a map:
// a field the code adds and the document lacks fails the API specs.

export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const str = (description?: string): Schema => ({
  type: 'string',
  ...(description && { description }),
});
export const bool: Schema = { type: 'boolean' };
export const int = (minimum = 0): Schema => ({ type: 'integer', minimum });
export const time: Schema = { type: 'string', format: 'date-time' };
export function nullable(schema: Schema): Schema {
  if ('$ref' in schema) return { oneOf: [schema, { type: 'null' }] };
  const enumWithNull = Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {};
  return { ...schema, type: [schema.type, 'null'], ...enumWithNull };
}
export const oneOfValues = (values: readonly string[]): Schema => ({ type: 'string', enum: [...values] });
export const arrayOf = (items: Schema): Schema => ({ type: 'array', items });
export const mapOf = (values: Schema): Schema => ({ type: 'object', additionalProperties: values });

/** An object whose every property is required, except those named in `optional`. */
export function object(properties: Record<string, Schema>, optional: readonly string[] = []): Schema {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    additionalProperties: false,
  };
}
