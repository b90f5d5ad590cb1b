/**
 * Benchmark baseline for `npm run bench:badges` (bench-only: never in the deployed Worker): the
 * badges Postgres alone can answer, computed per request in Postgres — broadcasts above the
 * last-read id, inbox unread by type, new posts of followed authors since the follow (no seen
 * counts: Postgres keeps none), stream markers read back. Stream items, notifications and DMs live
 * only in Redis, so the baseline leaves them out: it does less work than the real endpoint, which
 * makes the comparison conservative.
 */
import { sql } from "drizzle-orm";
import { Hono } from "hono";
import { inboxFromPostgres } from "../../../src/badges/inbox";
import { unreadBroadcastsFromPostgres } from "../../../src/badges/broadcasts";
import { capped, MAX_CAP } from "../../../src/badges/shared";
import { authenticate } from "../../../src/lib/auth";
import type { AppEnv } from "../../../src/lib/context";
import type { Services } from "../../../src/lib/services";

export async function naiveBadges(services: Services, userId: string, cap: number) {
  const [broadcasts, inbox, authors, streams] = await Promise.all([
    unreadBroadcastsFromPostgres(services, userId, cap),
    inboxFromPostgres(services, userId),
    services.db.execute<{ n: number }>(sql`
      select count(*)::int as n from (
        select 1 from follows f join posts p on p.author_id = f.followee_id and p.created_at > f.created_at and p.deleted_at is null
        where f.follower_id = ${userId} limit ${cap + 1}) t`),
    services.db.execute<{ n: number }>(sql`
      select count(*)::int as n from stream_members m
      left join user_access_log a on a.user_id = m.user_id and a.view_code = m.view_code and a.view_id = m.view_id
      where m.user_id = ${userId}`),
  ]);
  return {
    cap,
    broadcasts: capped(broadcasts, cap),
    inbox: { total: capped(inbox.total, cap) },
    authors: capped(Number(authors.rows[0]?.n ?? 0), cap),
    streamsRead: Number(streams.rows[0]?.n ?? 0),
  };
}

export const badgesBaselineRoutes = new Hono<AppEnv>().get("/v1/bench/naive-badges", authenticate(), async (c) => {
  const cap = Number(c.req.query("cap") ?? 99);
  return c.json(await naiveBadges(c.var.services, c.var.caller.userId, Number.isInteger(cap) && cap >= 1 && cap <= MAX_CAP ? cap : 99), 200);
});
