import { getBadges } from "../badges/badges";
import { readCounters, shownCounts } from "../counters/counters";
import { reactionsGivenPage } from "../counters/store";
import { ApiError } from "../lib/errors";
import { queryRows } from "../lib/db";
import { errorText, log } from "../lib/log";
import type { Services } from "../lib/services";
import { listChosenAuthors } from "../notify/authors";
import { userPreferences } from "../notify/preferences";
import { listDevices } from "../notify/store";
import { safetyExportRecords } from "../safety/export";
import { accountKeys, EXPORT_INTERVAL_SECONDS } from "./keys";

/**
 * `GET /v1/me/export`: the user's data as NDJSON, one record a line, each `{"type": …}`. Streamed
 * with bounded memory: a ReadableStream that produces one page at a time when the client reads
 * (`pull`), each page one keyset-paginated Postgres statement (EXPORT_PAGE rows; posts
 * POSTS_PAGE with their counters, one counters read per page), so an account with 100,000 posts
 * never has more than one page in memory. (Each ORDER BY names the table's column: the bigint,
 * not the text alias of the same name the page selects.) Devices are exported as kind and registration time only:
 * never an endpoint, a key or a token.
 */
export const EXPORT_PAGE = 500;
/** Posts per page: one counters read (at most 100 entities) per page. */
export const POSTS_PAGE = 100;

export type ExportRecord = { type: string } & Record<string, unknown>;

/**
 * Claims the user's export for the hour: SET NX EX, one command. Refused (429 with `Retry-After`,
 * the key's remaining TTL) while an export of the last hour stands.
 */
export async function claimExport(services: Pick<Services, "redisFor">, userId: string): Promise<void> {
  const redis = services.redisFor(userId);
  const key = accountKeys.exported(userId);
  const claimed = await redis.set(key, "1", { nx: true, ex: EXPORT_INTERVAL_SECONDS });
  if (claimed === "OK") return;
  const ttl = await redis.ttl(key);
  const retryAfter = String(ttl > 0 ? ttl : EXPORT_INTERVAL_SECONDS);
  throw new ApiError("rate_limited", `One export per hour; retry in ${retryAfter} s`, undefined, { "Retry-After": retryAfter });
}

const iso = (v: string | Date) => new Date(v).toISOString();

/** Every record of the export, page by page (an async generator: the stream pulls one page at a time). */
export async function* exportRecords(services: Services, userId: string): AsyncGenerator<ExportRecord[]> {
  yield [{ type: "account", userId, exportedAt: new Date().toISOString() }];

  for (let after = "0"; ; ) {
    const rows = await queryRows<{ id: string; text: string; created_at: string | Date; deleted_at: string | Date | null }>(
      services.db,
      "SELECT id::text AS id, text, created_at, deleted_at FROM posts WHERE author_id = $1 AND id > $2::bigint ORDER BY posts.id LIMIT $3",
      [userId, after, POSTS_PAGE],
    );
    if (rows.length === 0) break;
    const counts = await readCounters(services, "post", rows.map((r) => r.id));
    yield rows.map((r) => ({
      type: "post",
      id: r.id,
      text: r.text,
      createdAt: iso(r.created_at),
      ...(r.deleted_at ? { deletedAt: iso(r.deleted_at) } : {}),
      counts: shownCounts(counts.fields, counts.values.get(r.id)),
    }));
    if (rows.length < POSTS_PAGE) break;
    after = rows[rows.length - 1]!.id;
  }

  for (let after = "0"; ; ) {
    const rows = await queryRows<{ id: string; created_at: string | Date }>(
      services.db,
      "SELECT followee_id::text AS id, created_at FROM follows WHERE follower_id = $1 AND followee_id > $2::bigint ORDER BY followee_id LIMIT $3",
      [userId, after, EXPORT_PAGE],
    );
    if (rows.length === 0) break;
    yield rows.map((r) => ({ type: "following", userId: r.id, followedAt: iso(r.created_at) }));
    if (rows.length < EXPORT_PAGE) break;
    after = rows[rows.length - 1]!.id;
  }

  const own = await readCounters(services, "user", [userId]);
  yield [{ type: "followers", count: shownCounts(own.fields, own.values.get(userId)).followers ?? 0 }];

  for (const type of ["like", "favorite"] as const) {
    for (let after = "0"; ; ) {
      const rows = await reactionsGivenPage(services.db, type, userId, after, EXPORT_PAGE);
      if (rows.length === 0) break;
      yield rows.map((r) => ({ type, postId: r.post_id, at: iso(r.created_at) }));
      if (rows.length < EXPORT_PAGE) break;
      after = rows[rows.length - 1]!.post_id;
    }
  }

  // At most MAX_DEVICES_PER_USER; kind and registration only.
  yield (await listDevices(services.db, userId)).map((d) => ({ type: "device", deviceId: d.deviceId, kind: d.kind, registeredAt: d.registeredAt }));
  yield [{ type: "preferences", preferences: await userPreferences(services, userId) }];
  yield (await listChosenAuthors(services.db, userId)).map((a) => ({ type: "chosen_author", authorId: a.authorId, chosenAt: a.chosenAt }));
  // Blocks and mutes made, reports made: the safety capability's pages.
  yield* safetyExportRecords(services, userId, EXPORT_PAGE);
  yield [{ type: "unread", badges: await getBadges(services, userId, 99) }];
}

/** The export as an NDJSON byte stream; `done` runs once it ended, failed or was cancelled. */
export function exportStream(records: AsyncGenerator<ExportRecord[]>, done: () => Promise<void>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await records.next();
        if (next.done) {
          controller.close();
          await done();
          return;
        }
        if (next.value.length > 0) controller.enqueue(encoder.encode(next.value.map((r) => JSON.stringify(r)).join("\n") + "\n"));
      } catch (err) {
        // Headers are gone: the stream ends with an error line, which a reader sees as the last record.
        log.error({ message: "export failed mid-stream", error: errorText(err) });
        controller.enqueue(encoder.encode(JSON.stringify({ type: "error", message: "the export stopped early; retry after the hour" }) + "\n"));
        controller.close();
        await done();
      }
    },
    async cancel() {
      await records.return(undefined);
      await done();
    },
  });
}
