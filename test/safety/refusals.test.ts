import { describe, expect, it } from "vitest";
import { api, newId, show, type ApiResponse } from "../support/api";
import { badges, followCounts, ok, service } from "./support";

const as = (userId: string) => ({ as: { userId } });

async function expectBlocked(res: Promise<ApiResponse>) {
  const r = await res;
  expect(r.status, show(r)).toBe(403);
  expect(r.body.error.code).toBe("blocked");
}

async function blockedPair() {
  const [a, b] = [newId(), newId()];
  const post = (await api("POST", "/v1/posts", { ...as(a), body: { text: "mine" } })).body;
  const bPost = (await api("POST", "/v1/posts", { ...as(b), body: { text: "theirs" } })).body;
  await ok(api("PUT", `/v1/me/blocks/${b}`, as(a)));
  return { a, b, post, bPost };
}

const postCounts = async (id: string) => (await api("GET", `/v1/counters/post?ids=${id}`)).body.items[0].counts;

describe("what a block refuses (403 blocked, nothing changed)", () => {
  it("B's follow of A, and A's of B", async () => {
    const { a, b } = await blockedPair();
    await expectBlocked(api("PUT", `/v1/me/following/${a}`, as(b)));
    await expectBlocked(api("PUT", `/v1/me/following/${b}`, as(a)));
    expect(await followCounts(a, b)).toEqual({ [a]: { followers: 0, following: 0 }, [b]: { followers: 0, following: 0 } });
    expect((await api("GET", `/v1/users/${a}/followers`)).body.items).toEqual([]);
  });

  it("B's like and favourite of A's posts (and A's of B's); unlikes still work", async () => {
    const { a, b, post, bPost } = await blockedPair();
    await expectBlocked(api("PUT", `/v1/posts/${post.id}/likes/me`, as(b)));
    await expectBlocked(api("PUT", `/v1/posts/${post.id}/favorites/me`, as(b)));
    await expectBlocked(api("PUT", `/v1/posts/${bPost.id}/likes/me`, as(a)));
    expect(await postCounts(post.id)).toMatchObject({ likes: 0, favorites: 0 });
    expect(await postCounts(bPost.id)).toMatchObject({ likes: 0 });
    expect((await ok(api("DELETE", `/v1/posts/${post.id}/likes/me`, as(b)))).body.changed).toBe(false);
    // A third user is not affected.
    expect((await ok(api("PUT", `/v1/posts/${post.id}/likes/me`, as(newId())))).body.changed).toBe(true);
  });

  it("a DM from B to A, and from A to B; the badges do not move", async () => {
    const { a, b } = await blockedPair();
    await expectBlocked(api("POST", `/v1/dms/${a}`, { as: service(), body: { from: b, count: 3 } }));
    await expectBlocked(api("POST", `/v1/dms/${b}`, { as: service(), body: { from: a } }));
    expect((await badges(a)).dms).toMatchObject({ byPeer: {}, total: 0 });
    expect((await badges(b)).dms).toMatchObject({ byPeer: {}, total: 0 });
    // Others still reach A.
    const other = await ok(api("POST", `/v1/dms/${a}`, { as: service(), body: { from: newId() } }));
    expect(other.body).toMatchObject({ count: 1, total: 1, applied: true });
  });

  it("lets everything through again after the unblock (follows stay ended)", async () => {
    const { a, b, post } = await blockedPair();
    await ok(api("DELETE", `/v1/me/blocks/${b}`, as(a)));
    expect((await ok(api("PUT", `/v1/me/following/${a}`, as(b)))).body.changed).toBe(true);
    expect((await ok(api("PUT", `/v1/posts/${post.id}/likes/me`, as(b)))).body.changed).toBe(true);
    expect((await ok(api("POST", `/v1/dms/${a}`, { as: service(), body: { from: b } }))).body).toMatchObject({ applied: true, total: 1 });
  });
});

describe("the cached sets", () => {
  it("a block, unblock and mute hold on the very next request when the sets were already cached (the write path, not a rebuild)", async () => {
    const [a, b] = [newId(), newId()];
    // A first notification with a sender builds A's sets (empty marker) from Postgres.
    expect((await ok(api("POST", `/v1/users/${a}/notifications`, { as: service(), body: { type: "reply", from: newId() } }))).body.applied).toBe(true);
    await ok(api("PUT", `/v1/me/blocks/${b}`, as(a)));
    expect((await ok(api("POST", `/v1/users/${a}/notifications`, { as: service(), body: { type: "reply", from: b } }))).body.suppressed).toBe("blocked");
    await expectBlocked(api("POST", `/v1/dms/${a}`, { as: service(), body: { from: b } }));
    await ok(api("DELETE", `/v1/me/blocks/${b}`, as(a)));
    expect((await ok(api("POST", `/v1/users/${a}/notifications`, { as: service(), body: { type: "reply", from: b } }))).body).toMatchObject({ applied: true, total: 2 });
    await ok(api("PUT", `/v1/me/mutes/${b}`, as(a)));
    expect((await ok(api("POST", `/v1/dms/${a}`, { as: service(), body: { from: b } }))).body.suppressed).toBe("muted");
    await ok(api("PUT", `/v1/me/mutes/${b}`, { ...as(a), body: { notifications: false } }));
    expect((await ok(api("POST", `/v1/dms/${a}`, { as: service(), body: { from: b } }))).body).toMatchObject({ applied: true, total: 1 });
  });

  it("B's 'blocked me' set, cached before A's block, is written by it", async () => {
    const [a, b] = [newId(), newId()];
    expect((await ok(api("POST", `/v1/users/${b}/notifications`, { as: service(), body: { type: "reply", from: newId() } }))).body.applied).toBe(true);
    await ok(api("PUT", `/v1/me/blocks/${b}`, as(a)));
    expect((await ok(api("POST", `/v1/users/${b}/notifications`, { as: service(), body: { type: "reply", from: a } }))).body.suppressed).toBe("blocked");
    await expectBlocked(api("POST", `/v1/dms/${b}`, { as: service(), body: { from: a } }));
  });
});

describe("POST /v1/users/{A}/notifications from someone kept away (200, nothing counted)", () => {
  it("from B whom A blocked, and from B who blocked A: applied false, suppressed blocked, badges unchanged", async () => {
    const { a, b } = await blockedPair();
    for (const [to, from] of [[a, b], [b, a]] as const) {
      const res = await ok(api("POST", `/v1/users/${to}/notifications`, { as: service(), body: { type: "mention", count: 2, from } }));
      expect(res.body).toEqual({ userId: to, type: "mention", count: 0, total: 0, applied: false, suppressed: "blocked" });
      expect((await badges(to)).notifications).toMatchObject({ byType: {}, total: 0 });
    }
    // Without `from`, or from anyone else, it counts as before (and the existing answer keeps its fields).
    const plain = await ok(api("POST", `/v1/users/${a}/notifications`, { as: service(), body: { type: "reply" } }));
    expect(plain.body).toEqual({ userId: a, type: "reply", count: 1, total: 1, applied: true });
    const other = await ok(api("POST", `/v1/users/${a}/notifications`, { as: service(), body: { type: "reply", from: newId() } }));
    expect(other.body).toEqual({ userId: a, type: "reply", count: 2, total: 2, applied: true });
  });

  it("from B whom A mutes with notifications: suppressed muted, for notifications and DMs; a mute without notifications counts them", async () => {
    const [a, b, c] = [newId(), newId(), newId()];
    await ok(api("PUT", `/v1/me/mutes/${b}`, as(a)));
    await ok(api("PUT", `/v1/me/mutes/${c}`, { ...as(a), body: { notifications: false } }));
    const note = await ok(api("POST", `/v1/users/${a}/notifications`, { as: service(), body: { type: "like", from: b } }));
    expect(note.body).toEqual({ userId: a, type: "like", count: 0, total: 0, applied: false, suppressed: "muted" });
    const dm = await ok(api("POST", `/v1/dms/${a}`, { as: service(), body: { from: b, count: 2 } }));
    expect(dm.body).toEqual({ userId: a, peerId: b, count: 0, total: 0, applied: false, suppressed: "muted" });
    expect(await badges(a)).toMatchObject({ notifications: { total: 0 }, dms: { total: 0 } });
    // A mute of posts only: notifications and DMs still count; B stays followable (a mute refuses nothing).
    expect((await ok(api("POST", `/v1/users/${a}/notifications`, { as: service(), body: { type: "like", from: c } }))).body).toMatchObject({ applied: true, total: 1 });
    expect((await ok(api("POST", `/v1/dms/${a}`, { as: service(), body: { from: c } }))).body).toMatchObject({ applied: true, total: 1 });
    expect((await ok(api("PUT", `/v1/me/following/${a}`, as(b)))).body.changed).toBe(true);
    // Unmuted: counted again.
    await ok(api("DELETE", `/v1/me/mutes/${b}`, as(a)));
    expect((await ok(api("POST", `/v1/dms/${a}`, { as: service(), body: { from: b } }))).body).toMatchObject({ applied: true, count: 1, total: 2 });
  });

  it("an Idempotency-Key of a suppressed call is not used up: nothing was applied", async () => {
    const { a, b } = await blockedPair();
    const headers = { "Idempotency-Key": `k-${newId()}` };
    const res = await ok(api("POST", `/v1/users/${a}/notifications`, { as: service(), headers, body: { type: "mention", from: b } }));
    expect(res.body.suppressed).toBe("blocked");
    await ok(api("DELETE", `/v1/me/blocks/${b}`, as(a)));
    expect((await ok(api("POST", `/v1/users/${a}/notifications`, { as: service(), headers, body: { type: "mention", from: b } }))).body).toMatchObject({ applied: true, total: 1 });
  });
});
