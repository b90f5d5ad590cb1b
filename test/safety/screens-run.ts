/**
 * What a block and a mute do to the badges and to the timeline itself, at the Worker's N
 * (screens.test.ts at N = 1, screens-databases.test.ts at N = 3): "N new posts" and unread per
 * author leave hidden authors out, a block takes the other's unread DMs out of the count and ends
 * the choice of them as a notified author, both timelines are purged, and the fan-out skips a
 * hidden author so nothing posted while muted comes back when the mute ends.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { feedKeys, timelineMember } from "../../src/feed/keys";
import { redisAt } from "../../src/lib/redis";
import { databaseOf, topologyOf } from "../../src/lib/redis-topology";
import { eventually, feed, follow, newestFirst, post, walk } from "../feed/support";
import { api, newId } from "../support/api";
import { ok, service } from "./support";

const as = (userId: string) => ({ as: { userId } });
const n = () => topologyOf(env as unknown as Env).n;
const dbOf = (userId: string) => redisAt(env as unknown as Env, databaseOf(userId, n()));
const members = async (userId: string) => (await dbOf(userId).zrange<unknown[]>(feedKeys.timeline(userId), 0, -1)).map(String).filter((m) => m.includes(":"));
const count = (c: number) => ({ count: c, capped: false });

async function badgesOf(userId: string) {
  return (await ok(api("GET", "/v1/me/badges", as(userId)))).body as Record<string, unknown> & { feed: unknown; authors: unknown; dms: unknown };
}
async function unreadAuthors(userId: string) {
  const body = (await ok(api("GET", "/v1/me/unread/authors?limit=50", as(userId)))).body;
  return { total: body.total, items: body.items };
}
/** Posts `k` posts by `author`, and waits until the fan-out put the last on `witness`'s timeline. */
async function postSeen(author: string, k: number, witness: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < k; i++) ids.push(await post({ userId: author }, `${author} ${i}`));
  await eventually(() => members(witness), (m) => m.includes(timelineMember(ids[k - 1]!, author)));
  return ids;
}

export function screensTests() {
  describe(`a block and a mute on the badges and the timeline (N = ${n()})`, () => {
    it("badges: N new posts and unread per author leave out hidden authors; a block drops the other's unread DMs and the author choice", async () => {
      const [reader, friend, muted, blocked, witness] = [newId(), newId(), newId(), newId(), newId()];
      for (const a of [friend, muted, blocked]) {
        await follow(reader, a);
        await follow(witness, a);
      }
      await follow(blocked, reader);
      await feed(reader); // builds the timeline, so the fan-outs land on it
      await feed(witness);
      await feed(blocked);
      const readerPost = await post({ userId: reader }, "mine");
      await eventually(() => members(blocked), (m) => m.includes(timelineMember(readerPost, reader)));
      const posts = {
        friend: await postSeen(friend, 2, witness),
        muted: await postSeen(muted, 3, witness),
        blocked: await postSeen(blocked, 2, witness),
      };
      await eventually(() => members(reader), (m) => m.length === 8);
      await ok(api("POST", `/v1/dms/${reader}`, { as: service(), body: { from: blocked, count: 4 } }));
      await ok(api("POST", `/v1/dms/${reader}`, { as: service(), body: { from: friend, count: 2 } }));
      await ok(api("POST", `/v1/dms/${blocked}`, { as: service(), body: { from: reader, count: 3 } }));
      await ok(api("PUT", `/v1/me/notification-authors/${blocked}`, as(reader)));
      const before = await badgesOf(reader);
      // The reader's own post counts as new too (it is on their timeline above the marker).
      expect(before.feed).toEqual(count(8));
      expect(before.authors).toEqual(count(7));
      expect(before.dms).toEqual(count(6));

      await ok(api("PUT", `/v1/me/mutes/${muted}`, { ...as(reader), body: { notifications: false } }));
      await ok(api("PUT", `/v1/me/blocks/${blocked}`, as(reader)));

      const after = await badgesOf(reader);
      expect(after.feed).toEqual(count(3));
      expect(after.authors).toEqual(count(2));
      expect(after.dms).toEqual(count(2));
      // Every other field as it was.
      const { feed: _f, authors: _a, dms: _d, ...rest } = after;
      const { feed: _bf, authors: _ba, dms: _bd, ...restBefore } = before;
      expect(rest).toEqual(restBefore);
      expect(await unreadAuthors(reader)).toEqual({ total: 2, items: [{ authorId: friend, unread: 2 }] });
      const dms = async (userId: string) => {
        const { byPeer, total } = (await ok(api("GET", "/v1/me/dms", as(userId)))).body;
        return { byPeer, total };
      };
      expect(await dms(reader)).toEqual({ byPeer: { [friend]: 2 }, total: 2 });
      expect(await dms(blocked)).toEqual({ byPeer: {}, total: 0 });
      expect((await ok(api("GET", "/v1/me/notification-authors", as(reader)))).body.items).toEqual([]);
      // The muted author's posts stay on the timeline (B stays followed), hidden; the blocked author's are gone, and the reader's from theirs.
      expect((await members(reader)).sort()).toEqual([...posts.friend.map((id) => timelineMember(id, friend)), ...posts.muted.map((id) => timelineMember(id, muted)), timelineMember(readerPost, reader)].sort());
      expect(await members(blocked)).not.toContain(timelineMember(readerPost, reader));

      // The mute ends (unmuted): the muted author counts again.
      await ok(api("DELETE", `/v1/me/mutes/${muted}`, as(reader)));
      expect((await badgesOf(reader)).feed).toEqual(count(6));
      expect(await unreadAuthors(reader)).toEqual({ total: 5, items: [{ authorId: muted, unread: 3 }, { authorId: friend, unread: 2 }] });
    });

    it("badges: sets not cached are rebuilt by the badges read itself", async () => {
      const [reader, muted] = [newId(), newId()];
      await follow(reader, muted);
      await feed(reader);
      await postSeen(muted, 2, reader);
      await ok(api("PUT", `/v1/me/mutes/${muted}`, as(reader)));
      for (const k of ["sfy:bl:", "sfy:bm:", "sfy:mu:"]) await dbOf(reader).del(`${k}${reader}`);
      const got = await badgesOf(reader);
      expect(got.feed).toEqual(count(0));
      expect(got.authors).toEqual(count(0));
      for (const k of ["sfy:bl:", "sfy:bm:", "sfy:mu:"]) await dbOf(reader).del(`${k}${reader}`);
      expect(await unreadAuthors(reader)).toEqual({ total: 0, items: [] });
    });

    it("timeline: a block purges each one's posts from the other's, even without a follow (a late delivery)", async () => {
      const [a, b] = [newId(), newId()];
      await feed(a);
      await feed(b);
      const [pa, pb] = [await post({ userId: a }), await post({ userId: b })];
      // A fan-out page read before the block delivered late: each one's post on the other's timeline.
      await dbOf(a).zadd(feedKeys.timeline(a), { score: Number(pb), member: timelineMember(pb, b) });
      await dbOf(b).zadd(feedKeys.timeline(b), { score: Number(pa), member: timelineMember(pa, a) });
      await ok(api("PUT", `/v1/me/blocks/${b}`, as(a)));
      expect(await members(a)).toEqual([timelineMember(pa, a)]);
      expect(await members(b)).toEqual([timelineMember(pb, b)]);
    });

    it("fan-out: a muted author's posts never reach the muting reader's timeline, so the mute's end does not bring them back", async () => {
      const [reader, muted, witness] = [newId(), newId(), newId()];
      await follow(reader, muted);
      await follow(witness, muted);
      await feed(reader);
      await feed(witness);
      const early = await postSeen(muted, 1, reader);
      await ok(api("PUT", `/v1/me/mutes/${muted}`, { ...as(reader), body: { durationSeconds: 60 } }));
      const whileMuted = await postSeen(muted, 2, witness);
      expect(await members(reader)).toEqual([timelineMember(early[0]!, muted)]);
      expect(await walk(reader)).toEqual([]);
      // The mute ends by itself (the safety clock a minute on): what was posted before shows, what was posted meanwhile does not.
      const later = { env: { SAFETY_CLOCK_OFFSET_MS: "61000" } };
      expect(await walk(reader, 20, later)).toEqual(early);
      expect(await walk(witness)).toEqual(newestFirst([...early, ...whileMuted]));
    });
  });
}
