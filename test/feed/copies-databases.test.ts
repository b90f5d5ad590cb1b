/**
 * Pages at N = 3 served from this isolate's copies (src/feed/post-copies.ts for post entries, the
 * counters' edge copy for counts): a warm page whose posts this isolate drew within the bound asks
 * only the reader's database; a count written elsewhere shows once the bound has passed, a count
 * written here at once; a client holding a consistency token for a database reads that database's
 * counts there; a post deleted anywhere leaves the next page without any request to its database,
 * and one whose tombstone reached only its own database leaves pages within the bound.
 * Each database sits behind a private chaos bridge, so its requests are counted without noise.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { events } from "../../src/app";
import { incrementCounters } from "../../src/counters/counters";
import { addReaction } from "../../src/counters/reactions";
import type { Env } from "../../src/env";
import { deliver } from "../../src/feed/fanout";
import { feedKeys, TOMBSTONE } from "../../src/feed/keys";
import type { FeedMessage } from "../../src/feed/messages";
import { postCopies } from "../../src/feed/post-copies";
import { readHomeFeed } from "../../src/feed/timeline";
import { ConsistencyScope, runInScope } from "../../src/lib/consistency";
import { databaseOf } from "../../src/lib/redis-topology";
import { createServices } from "../../src/lib/services";
import { follow } from "../../src/social/follows";
import { createPost, deletePost } from "../../src/social/posts";
import { newIdOn, useChaosDatabases } from "../support/databases";

const databases = useChaosDatabases();

/** Services over the three chaos-bridged databases with the counters' edge copy at `boundMs`, and a queue the test delivers. */
function open(boundMs: number) {
  const held: FeedMessage[] = [];
  const queue = { send: async (m: FeedMessage) => void held.push(structuredClone(m)), sendBatch: async () => {} } as unknown as Queue<FeedMessage>;
  const ctx = createExecutionContext();
  const { services, close } = createServices(
    { ...(env as unknown as Env), ...databases.env, COUNTER_EDGE_CACHE_MS: String(boundMs), FEED_QUEUE: queue, FEED_SYNC_QUEUE: queue },
    ctx,
    events,
  );
  const drain = async () => {
    while (held.length > 0) await deliver(services, held.shift()!);
  };
  return { services, close, drain, ctx };
}

async function requestsPerDatabase(call: () => Promise<unknown>): Promise<number[]> {
  const before = await Promise.all(databases.pairs.map((p) => p.stats()));
  await call();
  const after = await Promise.all(databases.pairs.map((p) => p.stats()));
  return after.map((a, i) => a.requests - before[i]!.requests);
}

/** A reader on database 0 following an author whose posts live on databases 1 and 2 (and 0). */
async function readerWithRemotePosts(s: ReturnType<typeof open>, text: string) {
  const [reader, author] = [newIdOn(0, 3), newIdOn(1, 3)];
  await follow(s.services, reader, author);
  const ids: string[] = [];
  const enough = () => ids.some((id) => databaseOf(id, 3) === 1) && ids.some((id) => databaseOf(id, 3) === 2) && ids.filter((id) => databaseOf(id, 3) !== 0).length >= 3;
  while (ids.length < 40 && !enough()) {
    ids.push((await createPost(s.services, author, `${text} ${ids.length}`)).id);
  }
  await s.drain();
  const remote = ids.filter((id) => databaseOf(id, 3) !== 0);
  expect(new Set(remote.map((id) => databaseOf(id, 3))).size, "posts on databases 1 and 2").toBe(2);
  return { reader, author, ids, remote };
}

const page = (s: ReturnType<typeof open>, reader: string) => readHomeFeed(s.services, reader, { limit: 50 });

/**
 * `read` again right after a read (the copies just drawn) is one request, to the reader's database
 * (database 0), and answers every item as `exact` does. A read lands past half the bound (a
 * refresh) only when this machine stalls, never twice in a row here: up to 3 tries.
 */
async function expectWarmInOneRequest(read: () => Promise<{ items: unknown[] }>, exact: { items: unknown[] }) {
  const tries: number[][] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    await read();
    let served: { items: unknown[] } | undefined;
    tries.push(await requestsPerDatabase(async () => void (served = await read())));
    expect(served!.items).toEqual(exact.items);
    if (tries.at(-1)!.join() === "1,0,0") break;
  }
  expect(tries.at(-1), `requests per database, each try: ${JSON.stringify(tries)}`).toEqual([1, 0, 0]);
}

describe.skipIf(!databases.enough)("pages at N = 3 from this isolate's copies", () => {
  it("a warm page whose posts this isolate drew within the bound is one request, to the reader's database, and draws every item as its databases hold it", async () => {
    const s = open(1000);
    try {
      const { reader, ids } = await readerWithRemotePosts(s, "copied");
      await page(s, reader); // fills the caches the page missed, after its answer
      await waitOnExecutionContext(s.ctx);
      const exact = await page(s, reader); // every post read from its database: the copies are fresh
      expect(exact.items.map((i) => i.post.id).sort()).toEqual([...ids].sort());
      await expectWarmInOneRequest(() => page(s, reader), exact);
    } finally {
      await s.close();
    }
  });

  it("a warm ranked first page scores the other databases' candidates from the copies: one request, to the reader's database, in the order a page reading every database gives", async () => {
    const s = open(1000);
    try {
      const { reader, ids } = await readerWithRemotePosts(s, "ranked");
      const ranked = () => readHomeFeed(s.services, reader, { limit: 50, order: "ranked" });
      await ranked(); // fills what the ranking missed, and the copies
      await waitOnExecutionContext(s.ctx);
      // Asked of every database (no copy younger than a bound of 0 ms): the reference ranking.
      const { services: fresh, close: closeFresh } = open(0);
      let exact: Awaited<ReturnType<typeof ranked>>;
      try {
        exact = await readHomeFeed(fresh, reader, { limit: 50, order: "ranked" });
      } finally {
        await closeFresh();
      }
      expect(exact.items.map((i) => i.post.id).sort()).toEqual([...ids].sort());
      await expectWarmInOneRequest(ranked, exact);
    } finally {
      await s.close();
    }
  });

  it("a count written elsewhere shows once the bound has passed; one written in this isolate (a like) shows at once", async () => {
    const bound = 300;
    const s = open(bound);
    try {
      const { reader, remote } = await readerWithRemotePosts(s, "counted");
      const [post] = remote as [string];
      const likesOf = async () => (await page(s, reader)).items.find((i) => i.post.id === post)!.counts.likes;
      expect(await likesOf()).toBe(0);
      // Another isolate's increment: nothing here is told of it.
      await incrementCounters(s.services, [{ entity: "post", id: post, field: "likes", delta: 5 }]);
      await new Promise((resolve) => setTimeout(resolve, bound + 50));
      expect(await likesOf(), "an edge copy older than the bound was served").toBe(5);
      // This isolate's like drops the post's copy: the next page shows it whatever the copy's age.
      await likesOf();
      await addReaction(s.services, "like", reader, post);
      expect(await likesOf(), "the reader's own like").toBe(6);
    } finally {
      await s.close();
    }
  });

  it("a client holding a consistency token for a database reads its posts' counts there, the others' from the copy", async () => {
    const s = open(1000);
    try {
      const { reader } = await readerWithRemotePosts(s, "token");
      await page(s, reader);
      await waitOnExecutionContext(s.ctx);
      await page(s, reader);
      const scope = new ConsistencyScope([undefined, "1", undefined]);
      let counts: number[] = [];
      for (let attempt = 0; attempt < 3 && counts.join() !== "1,1,0"; attempt++) {
        await page(s, reader);
        counts = await requestsPerDatabase(() => runInScope(scope, () => page(s, reader)));
      }
      expect(counts).toEqual([1, 1, 0]);
    } finally {
      await s.close();
    }
  });

  it("a post deleted in another isolate leaves the next page by its tombstone on the reader's database, with no request to the post's; one deleted here leaves the copy", async () => {
    const s = open(1000);
    try {
      const { reader, author, remote } = await readerWithRemotePosts(s, "deleted");
      await page(s, reader);
      await waitOnExecutionContext(s.ctx);
      const [gone, ownOnly, alsoGone] = remote as [string, string, string];
      expect((await page(s, reader)).items.map((i) => i.post.id)).toContain(gone);
      expect(postCopies.get(gone), "the post's entry is copied").toBeDefined();
      // What another isolate's delete writes to Redis (its tombstone on every database), without this isolate's copy knowing.
      for (let i = 0; i < 3; i++) await s.services.redisAt(i).set(feedKeys.post(gone), TOMBSTONE);
      let items: string[] = [];
      const counts = await requestsPerDatabase(async () => void (items = (await page(s, reader)).items.map((i) => i.post.id)));
      expect(items).not.toContain(gone);
      expect(counts.slice(1), "no request to databases 1 and 2").toEqual([0, 0]);
      expect(postCopies.get(gone), "the tombstoned post's copy is dropped").toBeUndefined();
      // A tombstone that reached only the post's own database (the reader's was down at the
      // delete): the copy is served beside the counts' copy only, so the post leaves within the bound.
      await s.services.redisAt(databaseOf(ownOnly, 3)).set(feedKeys.post(ownOnly), TOMBSTONE);
      await new Promise((resolve) => setTimeout(resolve, 1050));
      expect((await page(s, reader)).items.map((i) => i.post.id), "a post tombstoned on its own database, past the bound").not.toContain(ownOnly);
      // A delete in this isolate drops the copy at once, and the next page leaves the post out.
      await deletePost(s.services, { userId: author, role: "user" }, alsoGone);
      expect(postCopies.get(alsoGone)).toBeUndefined();
      expect((await page(s, reader)).items.map((i) => i.post.id)).not.toContain(alsoGone);
    } finally {
      await s.close();
    }
  });
});
