import { customType } from "drizzle-orm/pg-core";

/**
 * A 64-bit id column that reads and writes decimal strings, the form ids take in the API.
 * (drizzle's bigint offers number, which loses precision past 2^53, or bigint, which JSON cannot carry.)
 */
export const idColumn = customType<{ data: string; driverData: string }>({
  dataType: () => "bigint",
  fromDriver: (value) => String(value),
});

/** A timestamptz kept as Postgres' own text so keyset cursors keep full microsecond precision. */
export function isoTimestamp(pgText: string): string {
  return new Date(pgText).toISOString();
}
