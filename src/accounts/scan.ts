/**
 * The erasure check (`npm run erase:check -- --user ID`, and the erasure test): every key of every
 * Redis database (its name, and by type every member, field and value) and every text, varchar,
 * bigint and jsonb column of every Postgres table, searched for the user's id and their post ids.
 * What it finds beyond the `account_deletions` row and the moderation records KEPT_RECORDS names
 * is a leftover; KNOWN_LEFTOVERS are those docs/privacy.md lists ("Known leftovers"), each with
 * the bound that ends it. Plain TypeScript
 * over two callbacks, so the Worker's tests and the Node script share it.
 */

/** One Redis database: a batch of commands in one request (the REST API's pipeline), replies in order. */
export type ScanRedis = (commands: readonly (readonly string[])[]) => Promise<unknown[]>;
/** Postgres: one statement with positional parameters, its rows. */
export type ScanQuery = <Row>(text: string, params: unknown[]) => Promise<Row[]>;

export type Finding = { place: string; sample: string };

/** Found, but documented in docs/privacy.md with what ends it. */
export const KNOWN_LEFTOVERS: readonly { place: RegExp; why: string }[] = [
  { place: /^redis\[\d+\] feed:post:\d+ = d$/, why: "a deleted post's tombstone, on every database: it hides the post from timelines a fan-out has not reached yet; TTL 7 days" },
  { place: /^redis\[\d+\] feed:fi:\d+:\d+( |$)/, why: "a follow's latest intent (`0` after the unfollow), read by queued follow syncs; TTL 1 day" },
  { place: /^redis\[\d+\] feed:rx:\d+ field [lv]\d+/, why: "another reader's cached reaction flag for one of the user's posts: never shown (the post is gone); TTL 7 days, renewed by that reader's reads" },
  { place: /^redis\[\d+\] feed:rx:\d+ value of f$/, why: "another reader's reaction-flag floor (a post id from which their flags are complete), which may be one of the user's post ids: a number, naming nothing once the post is gone; TTL 7 days" },
  { place: /^redis\[\d+\] ctr:trend:gone member \d+/, why: "posts deleted in the last minute, so a trending recompute does not store them; trimmed to the last minute, TTL 1 minute" },
  { place: /^redis\[\d+\] badge:au:\d+ field \d+/, why: "a follower's seen count for the user among the authors they follow, left when Redis failed after a deletion's unfollow removed the row (that event's badge part is not retried); never shown (the user has no posts left); TTL 30 days" },
  { place: /^redis\[\d+\] soc:f[lg]x:\d+ member \d+/, why: "another user's record that their follow of (or by) the user was removed, so a late follow event adds nothing back: the user's id, padded; TTL 1 hour" },
  { place: /^redis\[\d+\] soc:pfe:\d+ = \d+$/, why: "the user's profile-cache epoch, moved again by a cache drop retried after a Redis failure (a post's cache write failed) that landed after the deletion's last step: a number; TTL 1 day" },
  { place: /^redis\[\d+\] badge:ib:lep:\d+ = \d+$/, why: "the user's inbox-list epoch, moved by the erasure so a list rebuild in flight stores nothing: a number; TTL 1 day" },
  { place: /^redis\[\d+\] badge:dm:\d+ field \d+/, why: "the user's unread DMs in a peer's DM tally: not erased yet (no index of whom a user wrote to); cleared when the peer reads them" },
];

/**
 * Kept on purpose: the moderation records about the user (docs/privacy.md, "What is kept"), which
 * the safety capability's eraser strips to what moderation needs. A reporter or an operator is
 * never among them: a report the user made, or an action they took, names them nowhere after it.
 */
export const KEPT_RECORDS: readonly { place: RegExp; why: string }[] = [
  { place: /^postgres safety_reports\.(target_id|comment)$/, why: "a report about the user (its comment may name one of their posts): moderation's record" },
  { place: /^postgres safety_report_posts\.(post_id|text)$/, why: "a post a report named: its id, and its text where an operator acted on it (remove-posts, suspend)" },
  { place: /^postgres safety_report_actions\.note$/, why: "an operator's note on a report (it may name the user or a post)" },
];

const digits = (s: string) => s.replace(/[^0-9]/g, "");

/**
 * The ids as whole numbers anywhere in a text (a key, member, field or value): `:123:`, `l123`,
 * `"123"`, but not inside `91234`. A small id (a young deployment's first posts) also matches
 * unrelated numbers (a count, a batch number): read what the check lists for such ids.
 */
function idPattern(ids: readonly string[]): string {
  return `(^|[^0-9])(${ids.map(digits).join("|")})([^0-9]|$)`;
}

function matcher(userId: string, postIds: readonly string[]) {
  const ids = new RegExp(idPattern([userId, ...postIds]));
  return (text: string) => ids.test(text);
}

const SCAN_COUNT = 1000;
const BATCH = 100;

/** Every finding in one Redis database (`index` names it in the places). */
export async function scanRedis(redis: ScanRedis, index: number, userId: string, postIds: readonly string[]): Promise<Finding[]> {
  const names = matcher(userId, postIds);
  const found: Finding[] = [];
  const at = (key: string, detail: string, sample: string) => found.push({ place: `redis[${index}] ${key}${detail}`, sample: sample.slice(0, 200) });
  let cursor = "0";
  do {
    const [reply] = await redis([["SCAN", cursor, "COUNT", String(SCAN_COUNT)]]);
    const [next, keys] = reply as [string, string[]];
    cursor = String(next);
    for (let i = 0; i < keys.length; i += BATCH) {
      const batch = keys.slice(i, i + BATCH);
      const types = (await redis(batch.map((k) => ["TYPE", k]))) as string[];
      const reads = batch.map((k, j): string[] => {
        switch (types[j]) {
          case "string":
            return ["GET", k];
          case "hash":
            return ["HGETALL", k];
          case "set":
            return ["SMEMBERS", k];
          case "zset":
            return ["ZRANGE", k, "0", "-1"];
          case "list":
            return ["LRANGE", k, "0", "-1"];
          default:
            return ["TYPE", k];
        }
      });
      const values = await redis(reads);
      batch.forEach((key, j) => {
        const value = values[j];
        if (names(key)) {
          at(key, types[j] === "string" ? ` = ${String(value)}` : "", `${types[j]} ${JSON.stringify(value)}`);
          return;
        }
        if (types[j] === "string") {
          if (typeof value === "string" && names(value)) at(key, " value", value);
        } else if (types[j] === "hash") {
          const flat = (value as string[]) ?? [];
          for (let f = 0; f < flat.length; f += 2) {
            if (names(flat[f]!)) at(key, ` field ${flat[f]}`, `${flat[f]} = ${flat[f + 1]}`);
            else if (names(String(flat[f + 1]))) at(key, ` value of ${flat[f]}`, String(flat[f + 1]));
          }
        } else if (Array.isArray(value)) {
          for (const member of value as string[]) if (names(String(member))) at(key, ` member ${String(member)}`, String(member));
        }
      });
    }
  } while (cursor !== "0");
  return found;
}

/** Every finding in Postgres but the deletion's own row(s) in `account_deletions`. */
export async function scanPostgres(query: ScanQuery, userId: string, postIds: readonly string[]): Promise<Finding[]> {
  const columns = await query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT table_name, column_name, data_type FROM information_schema.columns
     WHERE table_schema = 'public' AND table_name <> 'account_deletions'
       AND data_type IN ('text', 'character varying', 'bigint', 'jsonb')
     ORDER BY table_name, ordinal_position`,
    [],
  );
  const ids = [userId, ...postIds];
  const textPattern = idPattern(ids);
  const found: Finding[] = [];
  for (const c of columns) {
    const column = `"${c.column_name}"`;
    const table = `"${c.table_name}"`;
    const rows =
      c.data_type === "bigint"
        ? await query<{ sample: string }>(`SELECT ${column}::text AS sample FROM ${table} WHERE ${column} = ANY($1::bigint[]) LIMIT 5`, [ids])
        : await query<{ sample: string }>(`SELECT ${column}::text AS sample FROM ${table} WHERE ${column}::text ~ $1 LIMIT 5`, [textPattern]);
    for (const r of rows) found.push({ place: `postgres ${c.table_name}.${c.column_name}`, sample: String(r.sample).slice(0, 200) });
  }
  return found;
}

/** Findings split into what docs/privacy.md lists as kept, as known leftovers, and the rest (a failed erasure). */
export function classify(findings: readonly Finding[]): { kept: Finding[]; known: Finding[]; unexpected: Finding[] } {
  const kept: Finding[] = [];
  const known: Finding[] = [];
  const unexpected: Finding[] = [];
  for (const f of findings) {
    if (KEPT_RECORDS.some((k) => k.place.test(f.place))) kept.push(f);
    else (KNOWN_LEFTOVERS.some((k) => k.place.test(f.place)) ? known : unexpected).push(f);
  }
  return { kept, known, unexpected };
}

/** A ScanRedis over an Upstash REST endpoint (its `/pipeline`): what the test and the script both use. */
export function restRedis(url: string, token: string, fetcher: typeof fetch = fetch): ScanRedis {
  return async (commands) => {
    const res = await fetcher(`${url.replace(/\/$/, "")}/pipeline`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify(commands),
    });
    if (!res.ok) throw new Error(`Redis REST ${res.status}: ${await res.text()}`);
    const replies = (await res.json()) as { result?: unknown; error?: string }[];
    return replies.map((r) => {
      if (r.error) throw new Error(`Redis: ${r.error}`);
      return r.result;
    });
  };
}
