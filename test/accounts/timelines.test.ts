/**
 * A deletion's posts leave followers' timelines in one pass over the followers, not one removal
 * fan-out per post: `social.posts` tombstones them (hidden at once) and sends no fan-out for a
 * normal account, then `feed.timelines` purges the author from each follower's timeline, page by
 * page, while the follows still stand; other authors' posts stay.
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { purgeFollowersPage } from "../../src/feed/erase";
import { feedKeys } from "../../src/feed/keys";
import type { FeedMessage } from "../../src/feed/messages";
import { queryRows } from "../../src/lib/db";
import { socialPostsEraser } from "../../src/social/erase";
import { withServices } from "../counters/support";
import { eventually, feed, follow, post } from "../feed/support";
import { newId } from "../support/api";

describe("a deletion's posts in followers' timelines", () => {
  it("are hidden by their deletes, which fan out nothing, then purged page by page, others' posts kept", async () => {
    const [author, other] = [newId(), newId()];
    const followers = [newId(), newId(), newId()];
    for (const f of followers) {
      await follow(f, author);
      await follow(f, other);
      await feed(f); // the timeline is built: fan-outs reach it
    }
    const mine = [await post({ userId: author }, "one"), await post({ userId: author }, "two")];
    const theirs = await post({ userId: other }, "kept");
    for (const f of followers) {
      const page = await eventually(() => feed(f), (p) => p.items.length === 3, 10_000);
      expect(page.items.map((i) => i.post.id).sort()).toEqual([...mine, theirs].sort());
    }

    const sent: FeedMessage[] = [];
    const FEED_QUEUE = { send: async (body: FeedMessage) => void sent.push(body), sendBatch: async (batch: { body: FeedMessage }[]) => void sent.push(...batch.map((m) => m.body)) };
    await withServices({ FEED_QUEUE: FEED_QUEUE as unknown as Env["FEED_QUEUE"] }, async (services) => {
      const members = (f: string) => services.redisFor(f).zrange<string[]>(feedKeys.timeline(f), 0, -1);
      expect(await socialPostsEraser.step(services, author, null)).toEqual({ removed: 2, done: true });
      // No removal fan-out (no message at all): the posts are still in the timelines, hidden by
      // their tombstones (a page read drops them from its own timeline: the first follower's).
      expect(sent).toEqual([]);
      for (const f of followers) expect(await members(f)).toEqual(expect.arrayContaining(mine.map((id) => `${id}:${author}`)));
      expect((await feed(followers[0]!)).items.map((i) => i.post.id)).toEqual([theirs]);

      // Two followers a page, newest follows first: the two others, then the first (already clean),
      // the cursor carried from one page to the next.
      const first = await purgeFollowersPage(services, author, null, 2);
      expect(first).toEqual({ removed: 2, cursor: expect.stringMatching(/^\d+@/) });
      const second = await purgeFollowersPage(services, author, "cursor" in first ? first.cursor : null, 2);
      expect(second).toEqual({ removed: 0, done: true });
      for (const f of followers) expect((await members(f)).map(String)).toEqual(["0", `${theirs}:${other}`]); // the sentinel, the other post
      // The follows still stand: `social.follows` removes them next, through the unfollow path.
      const rows = await queryRows(services.db, "SELECT 1 FROM follows WHERE followee_id = $1", [author]);
      expect(rows).toHaveLength(3);
    });
  });
});
