/**
 * Resharding while serving (`scripts/reshard/core.ts`, the code `npm run reshard` runs): the test
 * stack's databases, each behind a private chaos bridge, start as a 2-database deployment (the
 * third emptied), and are resharded to 3 while several loops increment and read counters through
 * the Worker. The counters model must be exact across it: every increment counted once, no read
 * above the truth (a moving slot's reads are Postgres' values, marked stale), exact values after
 * the move and after a flush, and every owner's keys on its new database. Then an interrupted
 * reshard (3 → 2, stopped after its flush) is resumed by running it again.
 *
 * The file leaves the databases as it found them: three, with the markers of 3 and no reshard state.
 */
import { afterAll, describe, expect, it } from "vitest";
import { Redis } from "@upstash/redis/cloudflare";
import { flushAll } from "../../src/counters/flush";
import { trimTrendingTask } from "../../src/counters/tasks";
import { counterKeys } from "../../src/counters/keys";
import type { Env } from "../../src/env";
import { classifyKey } from "../../src/lib/key-owners";
import { badgeKeys } from "../../src/badges/keys";
import { feedKeys } from "../../src/feed/keys";
import { opsKeys } from "../../src/lib/ops/keys";
import { notifyKeys } from "../../src/notify/keys";
import { moderationKeys, safetyKeys } from "../../src/safety/keys";
import { followListKeys, profileKeys } from "../../src/social/keys";
import { type DatabaseCredentials, databaseOfSlot, installRouting, parseReshardState, RESHARD_STATE_KEY, slotOf, TOPOLOGY_MARKER_KEY, topologyMarker } from "../../src/lib/redis-topology";
import { reshard, ReshardInterrupted, type ReshardDeps } from "../../scripts/reshard/core";
import { api, newId, show } from "../support/api";
import { databasesEnv, stackDatabases, useChaosDatabases } from "../support/databases";
import { postgresCoins, servicesFor, withServices } from "./support";

const databases = useChaosDatabases();
/** The same three databases behind other bridges: a Worker deployed anew, whose isolates read the reshard state first. */
const redeployed = useChaosDatabases();
/** And behind others again: an isolate that starts after a shrink is done, with the setting still listing three. */
const startedAfter = useChaosDatabases();

// Whatever happened, the databases go back to three with no reshard state (other files use them),
// and this isolate forgets the routing the file's reshards installed.
afterAll(async () => {
  installRouting(3, null);
  installRouting(2, null);
  if (!databases.enough) return;
  const clients = stackDatabases().slice(0, 3).map(clientOf);
  for (const [index, client] of clients.entries()) {
    await client.del(RESHARD_STATE_KEY);
    await client.set(TOPOLOGY_MARKER_KEY, topologyMarker(index, 3));
  }
});

const clientOf = (d: DatabaseCredentials) => new Redis({ url: d.url, token: d.token, automaticDeserialization: false, enableTelemetry: false });

function credentials(): DatabaseCredentials[] {
  return databases.pairs.map((p) => ({ url: p.restUrl, token: p.restToken }));
}


/** Runs the reshard as the command does, with the Postgres of the test stack. */
async function runReshard(to: number, options: Partial<Parameters<typeof reshard>[1]> = {}, deps: Partial<ReshardDeps> = {}) {
  const lines: string[] = [];
  const { services, close } = servicesFor();
  const print = (line: string) => (lines.push(line), console.log(`[reshard] ${line}`));
  try {
    const report = await reshard({ databases: credentials(), db: services.db, log: print, ...deps }, { to, ...options });
    return { report, lines };
  } finally {
    await close();
  }
}

/**
 * The stack's three databases as a 2-database deployment: flushed, markers of 2, the third empty.
 * (The flush goes through the stack's own bridges: the chaos ones must meet the reshard state at
 * their first marker check, as a freshly deployed Worker does.)
 */
async function startAtTwo() {
  await withServices(databasesEnv(stackDatabases().slice(0, 3)), (services) => flushAll(services));
  const clients = credentials().map(clientOf);
  await clients[2]!.flushdb();
  await clients[0]!.del(RESHARD_STATE_KEY);
  await clients[1]!.del(RESHARD_STATE_KEY);
  await clients[0]!.set(TOPOLOGY_MARKER_KEY, topologyMarker(0, 2));
  await clients[1]!.set(TOPOLOGY_MARKER_KEY, topologyMarker(1, 2));
}

/** An id whose slot is at `from` with 2 databases and at `to` with 3. */
function idMoving(from: number, to: number): string {
  for (;;) {
    const id = newId();
    const slot = slotOf(id);
    if (databaseOfSlot(slot, 2) === from && databaseOfSlot(slot, 3) === to) return id;
  }
}


const service = (i: number) => ({ userId: `9${i}${newId().slice(-6)}`, role: "service" as const });

describe("every key shape of every capability has a reshard rule", () => {
  it("classifies each key builder's key (none unknown), with the owner the builder was given", () => {
    const u = "123456";
    const built: [string, string | undefined][] = [
      [counterKeys.cache("post", u), u],
      [counterKeys.pending(), undefined],
      [counterKeys.batchSeq(), undefined],
      [counterKeys.batch(7), undefined],
      [counterKeys.unappliedBatches(), undefined],
      [counterKeys.reconcileCursor(), undefined],
      [counterKeys.trendingBucket(491000), undefined],
      [counterKeys.trendingResult("24h"), undefined],
      [counterKeys.trendingLast("24h"), undefined],
      [counterKeys.trendingLock("24h"), undefined],
      [counterKeys.trendingGone(), undefined],
      [counterKeys.trendingScratch("24h"), undefined],
      [counterKeys.idempotency("77", "k-1"), undefined],
      [counterKeys.eventApplied("981"), undefined],
      [counterKeys.callApplied("q8Zr-1xYw2kT0aBc"), undefined],
      [opsKeys.runs(), undefined],
      [opsKeys.fanouts(), undefined],
      [opsKeys.history(), undefined],
      [notifyKeys.devices(u), u],
      ...Object.values(safetyKeys).map((build) => [build(u), u] as [string, string | undefined]),
      ...Object.values(moderationKeys).map((build) => [build(), undefined] as [string, string | undefined]),
      ...Object.entries(badgeKeys).map(([name, build]) => [(build as (...a: string[]) => string)(u, "k-1"), /^(broadcastIds|broadcastItems|inboxMessage|reddotChannels|authorPublished|streamItems|streamLastItem|activeUsers|reddotRefreshIds|replayed|owed)$/.test(name) ? undefined : u] as [string, string | undefined]),
      ...Object.values(followListKeys).flatMap((build) => (["followers", "following"] as const).map((d) => [build(d, u), u] as [string, string | undefined])),
      ...Object.values(profileKeys).map((build) => [build(u), u] as [string, string | undefined]),
      ...Object.entries(feedKeys)
        .filter(([name]) => !name.endsWith("Prefix"))
        .map(([name, build]) => [(build as (...a: string[]) => string)(u, "42"), /^(bigStates|activity|outbox)$/.test(name) ? undefined : u] as [string, string | undefined]),
    ];
    for (const [key, owner] of built) {
      const rule = classifyKey(key);
      expect(rule.action, key).not.toBe("unknown");
      expect(rule.owner, key).toBe(owner);
    }
    expect(classifyKey(counterKeys.idempotency("77", "k-1")).fromValue!(`user:${u}:[["coins",1]]\n{}`)).toBe(u);
  });
});

describe.skipIf(!databases.enough)("npm run reshard: 2 → 3 databases while the Worker serves", () => {
  it("counts every increment once, never reads above the truth, and leaves every owner's keys on its new database", async () => {
    await startAtTwo();
    const two = databasesEnv(credentials().slice(0, 2));
    const three = databasesEnv(credentials());
    // Entities on every kind of move (and some that stay), so both old homes and the new database are involved.
    const ids = [idMoving(0, 0), idMoving(0, 1), idMoving(0, 2), idMoving(1, 1), idMoving(1, 0), idMoving(1, 2)];
    const issued: Record<string, number> = Object.fromEntries(ids.map((id) => [id, 0]));
    const done: Record<string, number> = Object.fromEntries(ids.map((id) => [id, 0]));
    let env = two;
    const incr = async (caller: ReturnType<typeof service>, id: string, coins: number, headers?: Record<string, string>) => {
      issued[id]! += coins;
      const res = await api("POST", `/v1/counters/user/${id}`, { as: caller, body: { deltas: { coins } }, env, headers });
      expect(res.status, show(res)).toBe(200);
      done[id]! += coins;
      return res;
    };

    // Before: an idempotent increment, and Redis-only state of other capabilities, on moving owners.
    const idemHeaders = { "Idempotency-Key": `reshard-${newId()}` };
    const idemCaller = service(0);
    await incr(idemCaller, ids[2]!, 5, idemHeaders);
    const clients = credentials().map(clientOf);
    const mover = ids[5]!; // database 1 → database 2
    await clients[1]!.hset(badgeKeys.notifications(mover), { like: "3", total: "3" });
    await clients[1]!.expire(badgeKeys.notifications(mover), 3600);
    await clients[1]!.set(feedKeys.seen(mover), "12345");
    // A big account's outbox is on every database of the setting: the joining one gets it too.
    for (const client of clients.slice(0, 2)) await client.zadd(feedKeys.outbox(mover), { score: 10, member: `10:${mover}` }, { score: 11, member: `11:${mover}` });
    await clients[1]!.set(feedKeys.timeline(mover), "a cache"); // a cache: dropped, not copied
    // The mover's profile cache (src/social), built by a read: dropped; its epoch: copied.
    const profilePost = (await api("POST", "/v1/posts", { as: { userId: mover }, body: { text: "before the reshard" }, env })).body;
    expect((await api("GET", `/v1/users/${mover}/posts`, { env })).body.items).toEqual([profilePost]);
    expect(await clients[1]!.exists(profileKeys.posts(mover)), "built on its database").toBe(1);
    const profileEpoch = await clients[1]!.get(profileKeys.epoch(mover));
    expect(profileEpoch).not.toBeNull();
    // A moving user's followers list (src/social), built by a read: dropped; its epoch and unfollow records: copied.
    const followed = idMoving(1, 2); // not the mover: follows notify, and the mover's notifications are checked below
    const [fan, gone] = [newId(), newId()];
    for (const f of [gone, fan]) expect((await api("PUT", `/v1/me/following/${followed}`, { as: { userId: f }, env })).status).toBe(200);
    expect((await api("DELETE", `/v1/me/following/${followed}`, { as: { userId: gone }, env })).status).toBe(200);
    const followersBefore = (await api("GET", `/v1/users/${followed}/followers`, { env })).body;
    expect(followersBefore.items.map((i: { userId: string }) => i.userId)).toEqual([fan]);
    expect(await clients[1]!.exists(followListKeys.list("followers", followed)), "built on its database").toBe(1);
    const followEpoch = await clients[1]!.get(followListKeys.epoch("followers", followed));
    expect(followEpoch).not.toBeNull();
    const unfollowed = await clients[1]!.zrange(followListKeys.unfollowed("followers", followed), 0, -1, { withScores: true });
    expect(unfollowed).toHaveLength(2);
    await clients[0]!.hset(badgeKeys.reddotChannels(), { [`reshard-${mover}`]: "100" }); // a global key every database holds
    // A sorted set every database holds, with a member at +inf (as the broadcast window's sentinel is).
    await clients[0]!.zadd(badgeKeys.broadcastIds(), { score: "+inf" as unknown as number, member: `reshard-${mover}` });
    const trendingPost = idMoving(1, 2);
    const bucket = counterKeys.trendingBucket(491_000);
    await clients[1]!.zadd(bucket, { score: 7, member: trendingPost }, { score: 5, member: ids[3]! });
    for (const id of ids) await incr(service(1), id, 1);

    // Traffic: three loops of increments, two of reads, until the reshard is done.
    let running = true;
    let resharding = false;
    const staleReads = { count: 0 };
    const reads = { count: 0 };
    const incrementLoop = async (i: number) => {
      const caller = service(i);
      let k = 0;
      while (running) await incr(caller, ids[(k++ + i) % ids.length]!, 1 + (k % 3));
    };
    const readLoop = async () => {
      while (running) {
        const before = { ...done };
        const res = await api("GET", `/v1/counters/user?ids=${ids.join(",")}`, { env });
        expect(res.status, show(res)).toBe(200);
        reads.count += 1;
        if (!resharding) await new Promise((resolve) => setTimeout(resolve, 20));
        if (res.body.stale) staleReads.count += 1;
        for (const item of res.body.items as { id: string; counts: { coins: number } }[]) {
          expect(item.counts.coins, `read of ${item.id} above the increments issued`).toBeLessThanOrEqual(issued[item.id]!);
          // Outside the move a non-stale read holds every finished increment. During it, an increment
          // a moving slot's owner sent through Postgres may land after the new home warmed its cache:
          // that read is below the truth until the reshard's next invalidation (never above it).
          if (!res.body.stale && !resharding) expect(item.counts.coins, `exact read of ${item.id} missing a finished increment`).toBeGreaterThanOrEqual(before[item.id]!);
        }
      }
    };
    const traffic = Promise.all([incrementLoop(1), incrementLoop(2), incrementLoop(3), readLoop(), readLoop()]);
    try {
      // The command: prepare, then (the 3-database setting deployed) move the slots.
      await new Promise((resolve) => setTimeout(resolve, 300)); // some traffic at N = 2 first
      resharding = true;
      const prepared = await runReshard(3, { prepareOnly: true });
      expect(prepared.report.phase).toBe("prepared");
      env = three; // the deploy of the new setting: from here every request runs with three databases
      const { report, lines } = await runReshard(3, {}, { slotsPerStep: 342 });
      expect(report).toMatchObject({ from: 2, to: 3, phase: "done", steps: 2, slotsMoved: 682 });
      expect(lines.filter((l) => /^step \d\/2: .* live on their new databases/.test(l))).toHaveLength(2);
    } finally {
      running = false;
      await traffic;
    }
    expect(reads.count).toBeGreaterThan(0);

    // After a flush (which also drops the cache entries of increments applied through Postgres while
    // their slot moved): Postgres holds exactly the model, and reads from Redis are exact again.
    expect(done).toEqual(issued);
    await withServices(three, (services) => flushAll(services));
    expect(await postgresCoins(ids)).toEqual(done);
    const after = await api("GET", `/v1/counters/user?ids=${ids.join(",")}`, { env: three });
    expect(after.body.stale).toBe(false);
    expect(Object.fromEntries((after.body.items as { id: string; counts: { coins: number } }[]).map((i) => [i.id, i.counts.coins]))).toEqual(done);

    // Every owner's keys on its new database, and nowhere else.
    for (const id of ids) {
      const home = databaseOfSlot(slotOf(id), 3);
      for (const [index, client] of clients.entries()) {
        expect(await client.exists(counterKeys.cache("user", id)), `cache of ${id} on database ${index} (home ${home})`).toBe(index === home ? 1 : 0);
      }
    }
    expect(await clients[2]!.exists(counterKeys.idempotency(idemCaller.userId, idemHeaders["Idempotency-Key"]))).toBe(1);
    expect(await clients[0]!.exists(counterKeys.idempotency(idemCaller.userId, idemHeaders["Idempotency-Key"]))).toBe(0);
    const replay = await api("POST", `/v1/counters/user/${ids[2]!}`, { as: idemCaller, body: { deltas: { coins: 5 } }, env: three, headers: idemHeaders });
    expect(replay.status, show(replay)).toBe(200);
    expect(await postgresCoins([ids[2]!])).toEqual({ [ids[2]!]: done[ids[2]!] }); // replayed, not applied again
    await withServices(three, (services) => flushAll(services));
    expect(await postgresCoins([ids[2]!])).toEqual({ [ids[2]!]: done[ids[2]!] });

    expect(await clients[2]!.hgetall(badgeKeys.notifications(mover))).toEqual(["like", "3", "total", "3"]);
    expect(await clients[2]!.ttl(badgeKeys.notifications(mover))).toBeGreaterThan(3000);
    expect(await clients[2]!.get(feedKeys.seen(mover))).toBe("12345");
    expect(await clients[2]!.zrange(feedKeys.outbox(mover), 0, -1, { withScores: true })).toEqual([`10:${mover}`, "10", `11:${mover}`, "11"]);
    for (const client of clients) expect(await client.exists(feedKeys.timeline(mover))).toBe(0);
    for (const client of clients) expect(await client.exists(profileKeys.posts(mover))).toBe(0);
    expect(await clients[2]!.get(profileKeys.epoch(mover))).toEqual(profileEpoch);
    expect((await api("GET", `/v1/users/${mover}/posts`, { env: three })).body.items, "the next read: Postgres, then built on the new database").toEqual([profilePost]);
    expect(await clients[2]!.exists(profileKeys.posts(mover))).toBe(1);
    expect((await api("GET", `/v1/users/${mover}/posts`, { env: three })).body.items).toEqual([profilePost]);
    for (const client of clients) expect(await client.exists(followListKeys.list("followers", followed))).toBe(0);
    expect(await clients[2]!.get(followListKeys.epoch("followers", followed))).toEqual(followEpoch);
    expect(await clients[2]!.zrange(followListKeys.unfollowed("followers", followed), 0, -1, { withScores: true })).toEqual(unfollowed);
    expect(await clients[1]!.exists(followListKeys.epoch("followers", followed), followListKeys.unfollowed("followers", followed))).toBe(0);
    expect((await api("GET", `/v1/users/${followed}/followers`, { env: three })).body, "the next read: Postgres, then built on the new database").toEqual(followersBefore);
    expect(await clients[2]!.exists(followListKeys.list("followers", followed))).toBe(1);
    expect((await api("GET", `/v1/users/${followed}/followers`, { env: three })).body).toEqual(followersBefore);
    expect(await clients[1]!.exists(badgeKeys.notifications(mover), feedKeys.seen(mover))).toBe(0);
    for (const client of clients) expect(await client.zcard(feedKeys.outbox(mover))).toBe(2);
    for (const client of clients) await client.del(feedKeys.outbox(mover));

    // The joining database got the global keys every database holds.
    expect(await clients[2]!.hget(badgeKeys.reddotChannels(), `reshard-${mover}`)).toBe("100");
    for (const client of clients) await client.hdel(badgeKeys.reddotChannels(), `reshard-${mover}`);
    expect(String(await clients[2]!.zscore(badgeKeys.broadcastIds(), `reshard-${mover}`))).toMatch(/^inf$|^Infinity$/);
    for (const client of clients) await client.zrem(badgeKeys.broadcastIds(), `reshard-${mover}`);
    // A trending bucket's moving post takes its score along; a staying one keeps it.
    expect(await clients[2]!.zscore(bucket, trendingPost)).toBe("7");
    expect(await clients[1]!.zscore(bucket, trendingPost)).toBeNull();
    expect(await clients[1]!.zscore(bucket, ids[3]!)).toBe("5");
    await clients[1]!.del(bucket);
    await clients[2]!.del(bucket);

    const state = parseReshardState(await clients[0]!.get(RESHARD_STATE_KEY));
    expect(state).toMatchObject({ from: 2, to: 3, phase: "done", moving: [] });
    for (const [index, client] of clients.entries()) expect(JSON.parse(String(await client.get(TOPOLOGY_MARKER_KEY)))).toMatchObject({ index, databases: 3 });
  }, 90_000);

  it("an interrupted reshard resumes where it stopped when run again, and loses nothing", async () => {
    const three = databasesEnv(credentials());
    const redeployedCredentials = redeployed.pairs.map((p) => ({ url: p.restUrl, token: p.restToken }));
    const threeAgain = databasesEnv(redeployedCredentials);
    const two = databasesEnv(redeployedCredentials.slice(0, 2));
    const clients = credentials().map(clientOf);
    const ids = [idMoving(0, 2), idMoving(1, 2), idMoving(0, 0), idMoving(1, 0)];
    const model: Record<string, number> = Object.fromEntries(ids.map((id) => [id, 0]));
    const add = async (env: Partial<Env>, coins: number) => {
      for (const id of ids) {
        const res = await api("POST", `/v1/counters/user/${id}`, { as: service(4), body: { deltas: { coins } }, env });
        expect(res.status, show(res)).toBe(200);
        model[id]! += coins;
      }
    };
    await add(three, 2);
    // The command's first run records the plan; the Worker is deployed again (a new setting, or the
    // same one: its isolates start by reading the plan); the second run moves the slots, and stops.
    expect((await runReshard(2, { prepareOnly: true })).report.phase).toBe("prepared");
    await add(threeAgain, 1);
    await expect(runReshard(2, { interruptAt: { step: 1, after: "flush" } }, { slotsPerStep: 1024 })).rejects.toThrow(ReshardInterrupted);
    const stopped = parseReshardState(await clients[0]!.get(RESHARD_STATE_KEY));
    expect(stopped).toMatchObject({ from: 3, to: 2, phase: "moving" });
    expect(stopped!.moving.length).toBe(682);
    // Meanwhile the moving owners answer degraded (stale), never wrong; increments still count.
    await add(threeAgain, 3);
    const during = await api("GET", `/v1/counters/user?ids=${ids.join(",")}`, { env: threeAgain });
    expect(during.status, show(during)).toBe(200);
    expect(during.body.stale).toBe(true);
    for (const item of during.body.items as { id: string; counts: { coins: number } }[]) expect(item.counts.coins).toBeLessThanOrEqual(model[item.id]!);

    // A write database 1 kept for database 2 (down then): owed to no one once database 2 left.
    await clients[1]!.rpush(badgeKeys.owed(2), JSON.stringify({ id: "left-behind", op: "published", keys: [], args: [] }));
    const resumed = await runReshard(2, {}, { slotsPerStep: 1024 });
    expect(await clients[1]!.exists(badgeKeys.owed(2))).toBe(0);
    expect(resumed.lines[0]).toMatch(/^resuming: /);
    expect(resumed.report).toMatchObject({ from: 3, to: 2, phase: "done", slotsMoved: 682 });
    await add(threeAgain, 1); // the 3-database setting still serves after a shrink, never touching database 2
    await add(two, 1); // and so does the 2-database one deployed after it
    const after = await api("GET", `/v1/counters/user?ids=${ids.join(",")}`, { env: two });
    expect(after.body.stale).toBe(false);
    expect(Object.fromEntries((after.body.items as { id: string; counts: { coins: number } }[]).map((i) => [i.id, i.counts.coins]))).toEqual(model);
    for (const id of ids) expect(await clients[2]!.exists(counterKeys.cache("user", id))).toBe(0);
    await withServices(two, (services) => flushAll(services));
    expect(await postgresCoins(ids)).toEqual(model);

    // Database 2 left: the reshard emptied it, and the 3-database setting that keeps serving sends it
    // nothing, not even what every database takes (the flush, the trending trim) — also from an
    // isolate that starts now and has not read the reshard state before its first call.
    expect(await clients[2]!.dbsize()).toBe(0);
    await withServices(threeAgain, (services) => flushAll(services));
    await withServices(threeAgain, (services) => trimTrendingTask.run(services));
    installRouting(3, null); // this isolate forgets the state, as a new one has not read it
    const fresh = databasesEnv(startedAfter.pairs.map((p) => ({ url: p.restUrl, token: p.restToken })));
    // Its first call to each database answers as an outage (routed before it read the state: the
    // flush is retried by the next run), and none reaches database 2.
    await expect(withServices(fresh, (services) => flushAll(services))).rejects.toThrow(/unavailable/);
    await withServices(fresh, (services) => flushAll(services));
    await add(fresh, 1);
    expect(await clients[2]!.dbsize()).toBe(0);
    await withServices(two, (services) => flushAll(services));
    expect(await postgresCoins(ids)).toEqual(model);

    // Back to three, as the file found the databases. A joining database holding only what this
    // deployment wrote there as a departed member (an earlier version left its marker, its copy of
    // the plan and the keys every database holds) is cleared and taken; anything else is refused.
    await clients[2]!.set(TOPOLOGY_MARKER_KEY, topologyMarker(2, 3));
    await clients[2]!.set(RESHARD_STATE_KEY, String(await clients[0]!.get(RESHARD_STATE_KEY)));
    await clients[2]!.set(counterKeys.batchSeq(), "7");
    await clients[2]!.zadd(badgeKeys.broadcastIds(), { score: 1, member: "left-behind" });
    await clients[2]!.set(feedKeys.seen(ids[0]!), "1"); // an owner's key: not what a departed member keeps
    await expect(runReshard(3)).rejects.toThrow(/database 2 is new to the deployment but is not empty \(5 keys\)/);
    await clients[2]!.del(feedKeys.seen(ids[0]!));
    const back = await runReshard(3, {}, { slotsPerStep: 1024, fenceMs: 100 }); // no traffic left: no fence needed
    expect(back.report.phase).toBe("done");
    expect(back.lines).toContain("database 2 left the deployment in the last reshard (3 → 2): cleared the 4 keys it kept of it");
    expect(await clients[2]!.zscore(badgeKeys.broadcastIds(), "left-behind")).toBeNull();
  }, 90_000);
});
