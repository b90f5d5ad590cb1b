/**
 * A deletion whose Redis and Postgres fail in the middle of its steps finishes, exact. Every step
 * is first delivered into a failure, then delivered again as the queue retries it:
 * - Redis killed mid-step: the step's first Redis requests run on Redis and lose their answer
 *   (`loseAnswers(…, "drop")`, what a SIGKILLed server after running a command looks like to the
 *   Worker), or the database is down from the step's first Redis request on;
 * - Postgres crashed mid-step: after the step's first statements the proxy drops every connection
 *   and refuses new ones (`setPostgresDown`), so the step's next statement fails.
 * Then the other users' counters, lists and timelines are what they would be without the user,
 * and the erasure check finds nothing but the kept records and the documented leftovers.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runEraseStep, startAccountDeletion, type StepOutcome } from "../../src/accounts/deletion";
import type { EraseMessage } from "../../src/accounts/messages";
import { classify, restRedis, scanPostgres, scanRedis } from "../../src/accounts/scan";
import { erasers } from "../../src/app";
import { flushAll } from "../../src/counters/flush";
import type { Env } from "../../src/env";
import { queryRows } from "../../src/lib/db";
import type { Services } from "../../src/lib/services";
import { withServices } from "../counters/support";
import { api, newId } from "../support/api";
import { counts, ok } from "./support";
import { stackDatabases } from "../support/databases";
import { eventually } from "../support/eventually";
import { createChaos, type Chaos } from "../support/stack";

const admin = { userId: "1", role: "admin" as const };


type Fault = "redis-killed" | "redis-down" | "postgres-crashed";

/** Postgres goes down before the step's `nth` pool statement (counted from the step's start). */
function crashPostgresAt(services: Services, chaos: Chaos, nth: number): () => void {
  const pool = (services.db as unknown as { $client: { query: (...args: unknown[]) => Promise<unknown> } }).$client;
  const query = pool.query.bind(pool);
  let seen = 0;
  pool.query = async (...args: unknown[]) => {
    if (++seen === nth) await chaos.setPostgresDown(true);
    return query(...args);
  };
  return () => void (pool.query = query);
}

let chaos: Chaos | undefined;
afterEach(async () => {
  await chaos?.setRedisDown(false);
  await chaos?.setPostgresDown(false);
  await chaos?.close();
  chaos = undefined;
});

describe("an account deletion through crashes", () => {
  // Each step meets each fault: the Redis faults alternate by step, and the second order swaps them.
  it.each<{ faults: Fault[] }>([{ faults: ["redis-killed", "redis-down"] }, { faults: ["redis-down", "redis-killed"] }, { faults: ["postgres-crashed"] }])("with $faults mid-step at every step: it finishes, exact", async ({ faults }) => {
    chaos = await createChaos();
    const c = chaos;
    const [victim, fan, star, peer, stranger] = [newId(), newId(), newId(), newId(), newId()];
    const as = (userId: string) => ({ as: { userId } });
    await withServices({}, (services) =>
      queryRows(services.db, "SELECT setval(pg_get_serial_sequence('posts', 'id'), GREATEST((SELECT max(id) FROM posts), 1000000000000))", []),
    );
    const posts: string[] = [];
    for (const text of ["one", "two", "three"]) posts.push((await ok(api("POST", "/v1/posts", { ...as(victim), body: { text } }), 201)).id);
    await ok(api("PUT", `/v1/me/following/${victim}`, as(fan)));
    await ok(api("PUT", `/v1/posts/${posts[0]}/likes/me`, as(fan)));
    const starPosts = [(await ok(api("POST", "/v1/posts", { ...as(star), body: { text: "a" } }), 201)).id, (await ok(api("POST", "/v1/posts", { ...as(star), body: { text: "b" } }), 201)).id];
    await ok(api("PUT", `/v1/me/following/${star}`, as(victim)));
    await ok(api("PUT", `/v1/me/following/${star}`, as(peer)));
    await ok(api("PUT", `/v1/posts/${starPosts[0]}/likes/me`, as(victim)));
    await ok(api("PUT", `/v1/posts/${starPosts[0]}/likes/me`, as(peer)));
    await withServices({}, (services) => flushAll(services));
    await ok(api("PUT", `/v1/posts/${starPosts[1]}/likes/me`, as(victim)));
    await ok(api("PUT", `/v1/posts/${starPosts[1]}/favorites/me`, as(victim)));
    await ok(api("PUT", `/v1/me/blocks/${stranger}`, as(victim)));
    await ok(api("PUT", `/v1/me/mutes/${victim}`, as(peer)));
    await ok(api("POST", "/v1/reports", { ...as(victim), body: { userId: stranger, postIds: [], category: "spam", comment: "" } }), 201);
    await ok(api("POST", "/v1/reports", { ...as(peer), body: { userId: victim, postIds: [posts[1]], category: "spam", comment: "" } }), 201);
    expect((await ok(api("GET", "/v1/me/feed", as(fan)))).items.map((p: { post: { id: string } }) => p.post.id)).toEqual(expect.arrayContaining(posts));
    await ok(api("GET", "/v1/me/feed", as(victim)));

    const sent: EraseMessage[] = [];
    const queue = { send: async (body: EraseMessage) => void sent.push(body) } as unknown as Env["ERASE_QUEUE"];
    const bindings = { ...c.bindings, ERASE_QUEUE: queue };
    const { deletionId } = await withServices(bindings, (services) => startAccountDeletion(services, erasers, victim));

    let failures = 0;
    let outcome: StepOutcome | undefined;
    for (let step = 0, attempt = 0; outcome !== "finished"; attempt++) {
      expect(attempt, "steps without end").toBeLessThan(200);
      const message: EraseMessage = { kind: "erase-step", deletionId, step };
      const fault = faults[step % faults.length]!;
      const firstTry = !sent.some((m) => m.step === -1 - step); // -1 - step marks "this step failed once"
      outcome = await withServices(bindings, async (services) => {
        let restore = () => {};
        if (firstTry) {
          if (fault === "redis-killed") await c.loseAnswers(2, "drop");
          if (fault === "redis-down") await c.setRedisDown(true);
          if (fault === "postgres-crashed") restore = crashPostgresAt(services, c, 3);
        }
        try {
          return await runEraseStep(services, erasers, message);
        } catch {
          failures++;
          return undefined;
        } finally {
          restore();
          await c.setRedisDown(false);
          await c.setPostgresDown(false);
          await c.loseAnswers(0, "drop");
          if (firstTry) sent.push({ ...message, step: -1 - step });
        }
      });
      if (outcome === "stepped" || outcome === "stale") step++;
    }
    // Most steps touch Redis and Postgres after their first statement: most first tries failed.
    expect(failures).toBeGreaterThan(erasers.length / 2);
    const done = await ok(api("GET", `/v1/admin/deletions/${deletionId}`, { as: admin }));
    expect(done.status).toBe("finished");

    await eventually(() => ok(api("GET", "/v1/me/feed", as(fan))), (f) => !f.items.some((p: { post: { id: string } }) => posts.includes(p.post.id)), 20_000);
    await withServices({}, (services) => flushAll(services));
    const after = await counts("post", starPosts);
    expect(after[starPosts[0]!]).toMatchObject({ likes: 1 }); // the peer's
    expect(after[starPosts[1]!]).toMatchObject({ likes: 0, favorites: 0 });
    const users = await counts("user", [fan, star, peer]);
    expect(users[fan]!.following).toBe(0);
    expect(users[star]!.followers).toBe(1); // the peer
    expect(users[peer]!.following).toBe(1);
    expect((await ok(api("GET", `/v1/users/${star}/followers`))).items.map((f: { userId: string }) => f.userId)).toEqual([peer]);
    expect((await ok(api("GET", "/v1/me/mutes", as(peer)))).items).toEqual([]);

    const found = [];
    for (const [index, db] of stackDatabases().entries()) found.push(...(await scanRedis(restRedis(db.url, db.token), index, victim, posts)));
    found.push(...(await withServices({}, (services) => scanPostgres((text, params) => queryRows(services.db, text, params), victim, posts))));
    expect(classify(found).unexpected).toEqual([]);
  });
});
