// A statement as data: the SQL of every table is built by pure functions returning { text, values },
// so specs read the statements without a database and the driver sees only parameters.

export interface Sql {
  readonly text: string;
  readonly values: unknown[];
}

/** A parameter holding Unix milliseconds, as a timestamptz. */
export const msTimestamp = (param: string): string => `to_timestamp(${param}::float8 / 1000.0)`;
