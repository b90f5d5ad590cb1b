/**
 * What a block does to the reads that are not the reader's own timeline, at the Worker's N
 * (reads.test.ts at N = 1, reads-databases.test.ts at N = 3): post and profile reads answer 403
 * `blocked` both ways, trending leaves hidden authors out for the reader only, a live room refuses
 * a blocked joiner and ejects one already there; and a block racing a fan-out of the blocked
 * author's post leaves nothing on the blocker's timeline.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { feedKeys, timelineMember } from "../../src/feed/keys";
import { CLOSE_BLOCKED } from "../../src/live/room";
import { redisAt } from "../../src/lib/redis";
import { databaseOf, topologyOf } from "../../src/lib/redis-topology";
import { eventually, feed, follow, post } from "../feed/support";
import { counts, enter, newRoom, openSocket, startSession } from "../live/helpers";
import { api, newId, show, tokenFor } from "../support/api";
import { closeSockets } from "../support/sockets";
import { ok } from "./support";
import { SELF } from "cloudflare:test";

afterEach(closeSockets);

const as = (userId: string) => ({ as: { userId } });
const n = () => topologyOf(env as unknown as Env).n;
const dbOf = (userId: string) => redisAt(env as unknown as Env, databaseOf(userId, n()));
const members = async (userId: string) => (await dbOf(userId).zrange<unknown[]>(feedKeys.timeline(userId), 0, -1)).map(String).filter((m) => m.includes(":"));

function expectBlocked(res: { status: number; body: any }) {
  expect(res.status, show(res as never)).toBe(403);
  expect(res.body.error.code).toBe("blocked");
}

export function readsTests() {
  describe(`a block on post reads, trending, live rooms (N = ${n()})`, () => {
    it("post and profile reads: 403 blocked both ways with a token; anyone else and anonymous reads unchanged", async () => {
      const [a, b, other] = [newId(), newId(), newId()];
      const [pa, pb] = [await post({ userId: a }, "a's"), await post({ userId: b }, "b's")];
      const before = (await ok(api("GET", `/v1/users/${a}/posts`, as(b)))).body;
      expect(before.items.map((p: { id: string }) => p.id)).toEqual([pa]);
      await ok(api("PUT", `/v1/me/blocks/${b}`, as(a)));
      expectBlocked(await api("GET", `/v1/users/${a}/posts`, as(b)));
      expectBlocked(await api("GET", `/v1/posts/${pa}`, as(b)));
      expectBlocked(await api("GET", `/v1/users/${b}/posts`, as(a)));
      expectBlocked(await api("GET", `/v1/posts/${pb}`, as(a)));
      // Someone else, anonymous, and the author themself read as before, every field.
      const expected = { items: before.items, nextCursor: null };
      expect((await ok(api("GET", `/v1/users/${a}/posts`, as(other)))).body).toEqual(expected);
      expect((await ok(api("GET", `/v1/users/${a}/posts`))).body).toEqual(expected);
      expect((await ok(api("GET", `/v1/users/${a}/posts`, as(a)))).body).toEqual(expected);
      expect((await ok(api("GET", `/v1/posts/${pa}`, as(other)))).body).toEqual({ ...before.items[0], counts: { likes: 0, comments: 0, forwards: 0, views: 0, favorites: 0 }, liked: false, favorited: false });
      // A bad token reads as anonymous would.
      expect((await api("GET", `/v1/posts/${pa}`, { headers: { Authorization: "Bearer nonsense" } })).status).toBe(200);
      // A missing post is still 404 for the blocked reader too (nothing else is told).
      expect((await api("GET", `/v1/posts/${BigInt(pb) + 1_000_000n}`, as(b))).status).toBe(404);
      // Unblocked: readable again.
      await ok(api("DELETE", `/v1/me/blocks/${b}`, as(a)));
      expect((await ok(api("GET", `/v1/users/${a}/posts`, as(b)))).body).toEqual(expected);
    });

    it("trending: a reader's list leaves out the authors their blocks and mutes hide, and stays full; others see them", async () => {
      const [reader, blocked, muted, friend, other] = [newId(), newId(), newId(), newId(), newId()];
      const ids: Record<string, string> = {};
      for (const author of [blocked, muted, friend]) {
        ids[author] = await post({ userId: author }, `trending ${author}`);
        for (let i = 0; i < 3; i++) await ok(api("PUT", `/v1/posts/${ids[author]}/likes/me`, as(newId())));
      }
      await ok(api("PUT", `/v1/me/blocks/${blocked}`, as(reader)));
      await ok(api("PUT", `/v1/me/mutes/${muted}`, as(reader)));
      const list = async (userId?: string, limit = 100) => {
        const res = await api("GET", `/v1/posts/trending?window=1h&limit=${limit}`, userId ? as(userId) : {});
        expect(res.status, show(res)).toBe(200);
        return res;
      };
      const ours = Object.values(ids);
      const shared = await eventually(
        async () => (await list(other)).body.items.map((i: { post: { id: string } }) => i.post.id) as string[],
        (got) => ours.every((id) => got.includes(id)),
      );
      const mine = (await list(reader)).body;
      expect(mine.items.map((i: { post: { id: string } }) => i.post.id)).toEqual(shared.filter((id) => id !== ids[blocked] && id !== ids[muted]));
      // Every field of the items kept is the shared list's.
      const sharedItems = (await list(other)).body.items;
      for (const item of mine.items) expect(item).toEqual(sharedItems.find((s: { post: { id: string } }) => s.post.id === item.post.id));
      // The blocked author's list leaves the reader's posts out the same way (none here), and keeps the friend's.
      expect((await list(blocked)).body.items.map((i: { post: { id: string } }) => i.post.id)).toContain(ids[friend]);
      // A page of `limit` is full while the list holds enough.
      const k = Math.min(mine.items.length, 2);
      expect((await list(reader, k)).body.items).toHaveLength(k);
      expect((await list(reader)).headers.get("Cache-Control")).toBe("private, max-age=2");
      expect((await list()).headers.get("Cache-Control")).toBe("public, max-age=2");
    });

    it("live: a blocked user's join (HTTP and WebSocket) of the host's room is 403 blocked and counts nothing", async () => {
      const [host, b] = [newId(), newId()];
      const room = newRoom();
      await startSession(room, host);
      await ok(api("PUT", `/v1/me/blocks/${b}`, as(host)));
      expectBlocked(await api("POST", `/v1/live/${room}/presence`, as(b)));
      const res = await SELF.fetch(`http://edge.test/v1/live/${room}/ws?token=${await tokenFor(b)}`, { headers: { Upgrade: "websocket" } });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("blocked");
      expect(await counts(room)).toMatchObject({ viewers: 0, onlineFans: 0 });
      // The other way round too: the host blocked by the viewer.
      const [host2, c] = [newId(), newId()];
      const room2 = newRoom();
      await startSession(room2, host2);
      await ok(api("PUT", `/v1/me/blocks/${host2}`, as(c)));
      expectBlocked(await api("POST", `/v1/live/${room2}/presence`, as(c)));
    });

    it("live: at the block, the blocked fan's socket and presence in the host's room go at once, and the fans online stop counting them", async () => {
      const [host, fan, stays] = [newId(), newId(), newId()];
      await follow(fan, host);
      await follow(stays, host);
      const room = newRoom();
      await startSession(room, host);
      await enter(room, fan, "phone");
      await enter(room, stays);
      const { ws } = await openSocket(room, fan);
      const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
      await eventually(() => counts(room), (c) => c.viewers === 2 && c.onlineFans === 2);
      await ok(api("PUT", `/v1/me/blocks/${fan}`, as(host)));
      expect(await closed).toBe(CLOSE_BLOCKED);
      expect(await counts(room)).toMatchObject({ viewers: 1, onlineFans: 1 });
      expectBlocked(await api("POST", `/v1/live/${room}/presence?device=phone`, as(fan)));
      expect(await counts(room)).toMatchObject({ viewers: 1, onlineFans: 1 });
    });

    it("race: a block racing the fan-out of the blocked author's post never leaves it on the blocker's timeline", async () => {
      for (let run = 0; run < 3; run++) {
        const [a, b, witness] = [newId(), newId(), newId()];
        await follow(a, b);
        await follow(witness, b);
        await feed(a);
        await feed(witness);
        const [id] = await Promise.all([post({ userId: b }, "racing"), api("PUT", `/v1/me/blocks/${b}`, as(a)).then(ok)]);
        // The witness follows B too: once the fan-out page reached its timeline, it has run for A as well.
        await eventually(() => members(witness), (m) => m.includes(timelineMember(id, b)));
        expect(await members(a)).not.toContain(timelineMember(id, b));
        expect((await feed(a)).items.map((i) => i.post.id)).not.toContain(id);
      }
    });
  });
}
