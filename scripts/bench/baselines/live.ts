/**
 * Benchmark baselines and tools for `npm run bench:live` (bench-only: never in the deployed Worker):
 * - the naive online-fan count the rooms replace: fetch every online id and join it against
 *   `follows` in Postgres on each request;
 * - the join as it was before the follow cache: the same session lookup, the same two object calls
 *   of a new viewer the join then made (`need_fan`, then the join with the status) and the same
 *   answer, with the fan status from one primary-key lookup on Postgres `follows`;
 * - seeding and the SQLite size per room.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { Hono } from "hono";
import type { Env } from "../../../src/env";
import { authenticate } from "../../../src/lib/auth";
import type { AppEnv } from "../../../src/lib/context";
import { ApiError } from "../../../src/lib/errors";
import type { Services } from "../../../src/lib/services";
import type { SessionDescriptor } from "../../../src/live/room";
import { forShard, isFanInPostgres, liveSession, ROOM_ID_PATTERN, roomStub, shardOf, shardsOf } from "../../../src/live/rooms";
import { rateLimit } from "../../../src/lib/rate-limit";
import { follows } from "../../../src/social/schema";
import type { BenchLiveRoom } from "../live-room";

/** The bench entry binds LIVE_ROOMS to `BenchLiveRoom`. */
function benchStubs(env: Env, session: SessionDescriptor | null, roomId: string) {
  return shardsOf(env, session, roomId) as unknown as DurableObjectStub<BenchLiveRoom>[];
}

/** The baseline join: a new viewer costs two object calls and a Postgres lookup between them. */
async function baselineEnter(services: Services, roomId: string, userId: string) {
  for (const fresh of [false, true]) {
    const session = await liveSession(services.env, roomId, fresh);
    const shard = shardOf(userId, session.shards);
    const stub = roomStub(services.env, roomId, shard) as unknown as DurableObjectStub<BenchLiveRoom>;
    const descriptor = forShard(session, shard);
    let result = await stub.enterIfKnown(descriptor, userId, "http:default", "http");
    if (result.status === "need_fan") {
      result = await stub.enter(descriptor, userId, await isFanInPostgres(services, userId, session.hostId), "http:default", "http");
    }
    if (result.status === "ok") return { roomId, sessionId: session.sessionId, userId, online: true, isFan: result.isFan, joined: result.joined };
  }
  throw new ApiError("conflict", `Room ${roomId} changed sessions; retry`);
}

function roomIdOf(raw: string): string {
  if (!ROOM_ID_PATTERN.test(raw)) throw new ApiError("bad_request", "Invalid roomId", [{ field: "roomId", message: "is not a room id" }]);
  return raw;
}

export async function naiveOnlineFans(services: Services, roomId: string) {
  const session = await liveSession(services.env, roomId);
  const ids = (await Promise.all(benchStubs(services.env, session, roomId).map((stub) => stub.viewerIds()))).flat();
  let onlineFans = 0;
  // Chunks keep each statement's parameter list bounded.
  for (let i = 0; i < ids.length; i += 5_000) {
    const chunk = ids.slice(i, i + 5_000);
    const [row] = await services.db
      .select({ n: sql<number>`count(*)::int` })
      .from(follows)
      .where(and(eq(follows.followeeId, session.hostId), inArray(follows.followerId, chunk)));
    onlineFans += row?.n ?? 0;
  }
  return { roomId, viewers: ids.length, onlineFans, sessionId: session.sessionId };
}

/** `userIds` enter an unsharded room, fans resolved in ONE query, in one object call. */
async function seedViewers(services: Services, roomId: string, userIds: string[]) {
  const session = await liveSession(services.env, roomId, true);
  if (session.shards !== 1) throw new ApiError("bad_request", "Seeding supports unsharded rooms only");
  const fans = new Set(
    (
      await services.db
        .select({ id: follows.followerId })
        .from(follows)
        .where(and(eq(follows.followeeId, session.hostId), inArray(follows.followerId, userIds)))
    ).map((r) => r.id),
  );
  const [primary] = benchStubs(services.env, session, roomId);
  return primary!.enterMany(forShard(session, 0), userIds.map((id) => [id, fans.has(id)] as [string, boolean]), "http:default");
}

export const liveBaselineRoutes = new Hono<AppEnv>()
  .post("/v1/bench/naive/live/:roomId/presence", authenticate(), rateLimit(), async (c) =>
    c.json(await baselineEnter(c.var.services, roomIdOf(c.req.param("roomId")), c.var.caller.userId), 200),
  )
  .get("/v1/live/:roomId/naive-online", authenticate(), async (c) => {
    return c.json(await naiveOnlineFans(c.var.services, roomIdOf(c.req.param("roomId"))), 200);
  })
  .post("/v1/live/:roomId/bench-seed", authenticate({ roles: ["service"] }), async (c) => {
    const { userIds } = await c.req.json<{ userIds: string[] }>();
    return c.json({ counts: await seedViewers(c.var.services, roomIdOf(c.req.param("roomId")), userIds.slice(0, 5_000)) }, 200);
  })
  .get("/v1/live/:roomId/bench-storage", authenticate(), async (c) => {
    const roomId = roomIdOf(c.req.param("roomId"));
    const [primary] = benchStubs(c.env, null, roomId);
    return c.json({ roomId, sqliteBytes: await primary!.storageBytes() }, 200);
  });
