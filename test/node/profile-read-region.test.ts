/**
 * A warm profile (`GET /v1/users/{id}/posts`, src/social/profile.ts) through a read region of a
 * Global database (scripts/stack/far-region.ts: a replica behind a delaying link, the near-region
 * bridge routing as Upstash does), with the Worker's own Redis client (read regions on): every page
 * of the walk, anonymous or with another reader's block check, is answered by the replica, with
 * nothing for the primary before the answer or after it, and no Postgres. The workers tests class
 * the same requests (test/social/profile-cache.test.ts); this one watches the routing itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis as RedisConnection } from "ioredis";
import type { Services } from "../../src/lib/services";
import { moderationCopy } from "../../src/safety/copy";
import { moderationKeys, safetyKeysOf, SETS_TTL_SECONDS } from "../../src/safety/keys";
import { PROFILE_COMPLETE, PROFILE_TTL_SECONDS, profileKeys } from "../../src/social/keys";
import { listPostsByAuthor } from "../../src/social/posts";
import { profileEntry } from "../../src/social/profile";
import { regionServices, routedThrough, startRegionWithPrimary, type RegionWithPrimary } from "../support/read-region";

describe("profile pages through a read region 40 ms from the primary", () => {
  const [reader, author] = ["6161", "88"];
  /** 12 posts of the author, ids 7001…7012; every fourth held (its author's eyes only). */
  const posts = Array.from({ length: 12 }, (_, k) => ({ id: String(7001 + k), text: `post ${k}`, createdAt: new Date(Date.UTC(2026, 0, 1, 0, k)).toISOString(), held: k % 4 === 3 }));
  let world: RegionWithPrimary;
  let primaryServer: RedisConnection;
  let services: Services;
  let background: Promise<unknown>[] = [];

  beforeAll(async () => {
    world = await startRegionWithPrimary({ name: "profile read-region test primary", token: "profile-region-token", farRoundTripMs: 40 });
    primaryServer = world.primaryServer;
    services = regionServices(world, { env: { REDIS_READ_REGIONS: "on" }, noPostgres: "a warm profile page reads no Postgres", waitUntil: (p) => void background.push(p) });
    const write = primaryServer.multi();
    write.zadd(profileKeys.posts(author), 0, PROFILE_COMPLETE, ...posts.flatMap((p) => [p.id, profileEntry(p, p.held)]));
    write.expire(profileKeys.posts(author), PROFILE_TTL_SECONDS);
    // The reader's safety sets built, with nothing in them (the empty markers).
    for (const key of safetyKeysOf(reader).slice(0, 3)) write.zadd(key, 0, "0").expire(key, SETS_TTL_SECONDS);
    write.zadd(moderationKeys.suspended(), 1, "v", 0, "t");
    await write.exec();
    await world.replicated();
  }, 60_000);
  afterAll(() => world?.stop());

  const routed = (read: () => Promise<unknown>) => routedThrough(world, () => ((background = []), read()), () => Promise.all(background), { primaryBridge: true });

  it("every page, anonymous or another reader's: the replica answers, nothing reaches the primary, held posts left out", async () => {
    await moderationCopy(services);
    await listPostsByAuthor(services, author, { limit: 4 }); // loads the script into the region
    await listPostsByAuthor(services, author, { limit: 4 }, reader);
    const visible = posts.filter((p) => !p.held).reverse().map(({ id, text, createdAt }) => ({ id, authorId: author, text, createdAt }));
    for (const viewer of [undefined, reader]) {
      const items: unknown[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        let page!: Awaited<ReturnType<typeof listPostsByAuthor>>;
        const counts = await routed(async () => (page = await listPostsByAuthor(services, author, { limit: 4, ...(cursor ? { cursor } : {}) }, viewer)));
        // The block check is a call of its own, on the reader's database, beside the page's.
        const calls = viewer ? 2 : 1;
        expect(counts, `page ${pages} as ${viewer ?? "anonymous"}`).toEqual({ forAnswer: { replica: calls, primary: 0, primaryBridge: 0 }, after: { replica: 0, primary: 0, primaryBridge: 0 } });
        items.push(...page.items);
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      expect(items).toEqual(visible);
    }
    // The author's own walk includes the held posts.
    const own = await listPostsByAuthor(services, author, { limit: 100 }, author);
    expect(own.items.map((p) => p.id)).toEqual(posts.map((p) => p.id).reverse());
  });
});
