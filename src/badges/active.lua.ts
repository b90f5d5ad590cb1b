/**
 * The active-set record (`badge:active`, what the repair cron calls "recently active") riding in a
 * user's own write: `source` runs after a ZADD of the user at `now`, whose key and arguments are
 * taken off the END of KEYS and ARGV first, so the script reads KEYS and ARGV exactly as it does
 * alone (`#KEYS`, `unpack(ARGV, n)` included). No round trip, no request of its own: one ZADD more
 * in a write the user sends anyway.
 */
const recording = new Map<string, string>();

export function recordingActive(source: string): string {
  let wrapped = recording.get(source);
  if (!wrapped) {
    wrapped = `local activeNow = table.remove(ARGV)
local activeUser = table.remove(ARGV)
redis.call('ZADD', table.remove(KEYS), activeNow, activeUser)
${source}`;
    recording.set(source, wrapped);
  }
  return wrapped;
}
