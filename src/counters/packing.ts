/**
 * The counters' packed cache value read in the Worker: the TypeScript twin of `unpack_counters`
 * (`read.lua.ts`, COUNTER_PACKING), for callers that read `ctr:c:*` with a bare MGET instead of a
 * script (a feed page's second round at N > 1: one command per database, not EVALSHA + MGET).
 * Same rule: exactly `fieldCount` decimal integers joined by commas, else a miss (null), so a
 * value packed before the registry grew a field is warmed again, never misread.
 * `test/counters/packing.test.ts` checks both agree on the same values through real Redis.
 */
export function unpackCounters(value: unknown, fieldCount: number): string[] | null {
  // Upstash's client turns a one-field value ("12") into a number: take it back as text.
  if (typeof value === "number" && Number.isSafeInteger(value)) value = String(value);
  if (typeof value !== "string" || fieldCount < 1) return null;
  const parts = value.split(",");
  if (parts.length !== fieldCount || !parts.every((p) => /^-?\d+$/.test(p))) return null;
  return parts;
}
