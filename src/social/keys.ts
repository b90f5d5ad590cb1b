/**
 * Every Redis key the social capability owns, with its shape and bound. Nobody else writes them.
 *
 * They are CACHES of Postgres (`posts`, `follows`): any of them may vanish (TTL, eviction, a Redis
 * restart, a reshard) and is rebuilt from Postgres by the next read that misses it, after that
 * read's answer. OWNER (where a key lives at N > 1, `src/lib/redis-topology.ts`): the user named in
 * the key.
 */

// ── Profiles: an author's recent posts ───────────────────────────────────────

// ── Follower and following lists ─────────────────────────────────────────────
