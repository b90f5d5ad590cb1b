/**
 * Every Redis key the accounts capability owns. Nobody else writes them.
 */

/** A user may export their data once an hour (`GET /v1/me/export`). */
export const EXPORT_INTERVAL_SECONDS = 60 * 60;

export const accountKeys = {
  /**
   * Hash user id → deletion id of every deletion running now, on database 0: what the per-isolate
   * snapshot (`deleting.ts`) reads with one HKEYS. Set by the request that starts a deletion,
   * field deleted by the step that finishes it, so it holds the deletions running at once (each
   * runs minutes); no TTL, as a field that expired early would let the user write mid-deletion.
   */
  deleting: () => "acct:deleting",
  /**
   * String "1": the user exported within the hour (SET NX EX EXPORT_INTERVAL_SECONDS); its TTL is
   * the `Retry-After` of the next try. Owner: the user (their database). Removed by the deletion.
   */
  exported: (userId: string) => `acct:export:${userId}`,
} as const;
