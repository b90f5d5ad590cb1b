/**
 * Account deletion's routes at N = 1: the confirm guard, who may ask, the 202 and its repeat (the
 * same deletion), the 409 `account_deleting` while it runs, the progress, and the id as a new,
 * empty user after it finished. The deleting-users snapshot's bound is checked on its own, with a
 * clock of the test's.
 */
import { describe, expect, it } from "vitest";
import { forgetDeletingSnapshot, isDeleting, MAX_SNAPSHOT_AGE_MS, REFRESH_AFTER_MS } from "../../src/accounts/deleting";
import { api, newId, show } from "../support/api";
import { eventually } from "../support/eventually";

const service = { userId: "9000", role: "service" as const };
const admin = { userId: "1", role: "admin" as const };

async function deletion(id: string) {
  const res = await api("GET", `/v1/admin/deletions/${id}`, { as: admin });
  expect(res.status, show(res)).toBe(200);
  return res.body;
}

describe("DELETE /v1/me", () => {
  it("refuses a body without the caller's own id with a 400 naming confirm, and changes nothing", async () => {
    const me = newId();
    const post = await api("POST", "/v1/posts", { as: { userId: me }, body: { text: "still here" } });
    for (const body of [{}, { confirm: newId() }, { confirm: 42 }]) {
      const res = await api("DELETE", "/v1/me", { as: { userId: me }, body });
      expect(res.status, show(res)).toBe(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain("confirm");
    }
    expect((await api("GET", `/v1/posts/${post.body.id}`)).status).toBe(200);
    expect((await api("GET", `/v1/users/${me}/posts`, { as: { userId: me } })).status).toBe(200);
  });

  it("is the user's own: a service or admin token is refused with 403 (they use DELETE /v1/users/{id})", async () => {
    const res = await api("DELETE", "/v1/me", { as: service, body: { confirm: service.userId } });
    expect(res.status, show(res)).toBe(403);
  });
});

describe("DELETE /v1/users/{id} and GET /v1/admin/deletions/{id}", () => {
  it("refuses users (403), and an unknown deletion is 404", async () => {
    const me = newId();
    expect((await api("DELETE", `/v1/users/${newId()}`, { as: { userId: me } })).status).toBe(403);
    expect((await api("DELETE", `/v1/users/${me}`, { as: { userId: me } })).status).toBe(403);
    expect((await api("GET", `/v1/admin/deletions/1`, { as: { userId: me } })).status).toBe(403);
    expect((await api("GET", `/v1/admin/deletions/999999999999`, { as: admin })).status).toBe(404);
    expect((await api("GET", "/v1/admin/deletions", { as: { userId: me } })).status).toBe(403);
    const bad = await api("GET", "/v1/admin/deletions?limit=51", { as: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe("limit");
  });

  it("runs one deletion however often it is asked, refuses the user's token with 409 while it runs, and then the id is a new, empty user", async () => {
    const me = newId();
    const fan = newId();
    const post = (await api("POST", "/v1/posts", { as: { userId: me }, body: { text: "to be erased" } })).body;
    expect((await api("PUT", `/v1/me/following/${me}`, { as: { userId: fan } })).status).toBe(200);

    const first = await api("DELETE", "/v1/me", { as: { userId: me }, body: { confirm: me } });
    expect(first.status, show(first)).toBe(202);
    expect(first.body).toEqual({ deletionId: expect.stringMatching(/^[1-9]\d*$/), status: "running" });
    const again = await api("DELETE", `/v1/users/${me}`, { as: service });
    expect(again.status, show(again)).toBe(202);
    expect(again.body).toEqual(first.body);
    const byAdmin = await api("DELETE", `/v1/users/${me}`, { as: admin });
    expect(byAdmin.body.deletionId).toBe(first.body.deletionId);

    // The first step waits past the snapshot's bound: the deletion is running for at least that long.
    const refused = await eventually(() => api("GET", "/v1/me/devices", { as: { userId: me } }), (r) => r.status === 409, MAX_SNAPSHOT_AGE_MS + 1_000);
    expect(refused.status, show(refused)).toBe(409);
    expect(refused.body.error.code).toBe("account_deleting");
    const write = await api("POST", "/v1/posts", { as: { userId: me }, body: { text: "sneaking in" } });
    expect(write.status, show(write)).toBe(409);
    // Others are not refused.
    expect((await api("GET", "/v1/me/devices", { as: { userId: fan } })).status).toBe(200);

    const running = await deletion(first.body.deletionId);
    expect(running).toMatchObject({ deletionId: first.body.deletionId, userId: me, status: "running", finishedAt: null });
    // The console's list has it, among the running ones, which come first.
    const listed = (await api("GET", "/v1/admin/deletions?limit=50", { as: admin })).body.items as { deletionId: string; status: string }[];
    expect(listed.find((d) => d.deletionId === first.body.deletionId)).toMatchObject({ status: "running", userId: me });
    const statuses = listed.map((d) => d.status);
    expect(statuses).toEqual([...statuses].sort((a, b) => (a === b ? 0 : a === "running" ? -1 : 1)));
    expect(running.progress.map((p: { capability: string }) => p.capability)).toEqual(expect.arrayContaining(["social.posts", "social.follows", "notify", "feed"]));

    const done = await eventually(() => deletion(first.body.deletionId), (d) => d.status === "finished", 45_000);
    expect(done.status).toBe("finished");
    expect(done.finishedAt).toEqual(expect.any(String));
    expect(done.progress.every((p: { done: boolean }) => p.done)).toBe(true);
    const finished = (await api("GET", "/v1/admin/deletions?limit=50", { as: admin })).body.items as { deletionId: string; status: string }[];
    expect(finished.find((d) => d.deletionId === first.body.deletionId)).toMatchObject({ status: "finished" });
    const removed = Object.fromEntries(done.progress.map((p: { capability: string; removed: number }) => [p.capability, p.removed]));
    expect(removed["social.posts"]).toBe(1);
    expect(removed["social.follows"]).toBe(1);

    // The id is a new, empty user: let in again (within the snapshot's bound), with nothing of before.
    const back = await eventually(() => api("GET", `/v1/me/devices`, { as: { userId: me } }), (r) => r.status === 200, MAX_SNAPSHOT_AGE_MS + 1_000);
    expect(back.status, show(back)).toBe(200);
    expect((await api("GET", `/v1/posts/${post.id}`)).status).toBe(404);
    expect((await api("GET", `/v1/users/${me}/posts`)).body.items).toEqual([]);
    expect((await api("GET", `/v1/users/${me}/followers`)).body.items).toEqual([]);
    expect((await api("GET", `/v1/users/${fan}/following`)).body.items).toEqual([]);
    // A new deletion of the new user is a new deletion.
    const later = await api("DELETE", `/v1/users/${me}`, { as: service });
    expect(later.status, show(later)).toBe(202);
    expect(later.body.deletionId).not.toBe(first.body.deletionId);
    await eventually(() => deletion(later.body.deletionId), (d) => d.status === "finished", 45_000);
  });
});

describe("the deleting-users snapshot", () => {
  function fakeRedis() {
    const deleting = new Set<string>();
    const pending: Promise<unknown>[] = [];
    let reads = 0;
    const services = {
      redis: { hkeys: async () => (reads++, [...deleting]) },
      waitUntil: (p: Promise<unknown>) => void pending.push(p),
    } as never;
    return { deleting, pending, services, reads: () => reads };
  }

  it("costs a request no round trip while fresh, refreshes after the response once REFRESH_AFTER_MS old, and refuses within MAX_SNAPSHOT_AGE_MS", async () => {
    forgetDeletingSnapshot();
    const redis = fakeRedis();
    const user = newId();
    const t0 = 1_000_000;
    expect(await isDeleting(redis.services, user, t0)).toBe(false); // first use: loads it
    expect(redis.reads()).toBe(1);
    redis.deleting.add(user); // a deletion starts in another isolate
    expect(await isDeleting(redis.services, user, t0 + REFRESH_AFTER_MS - 1)).toBe(false);
    expect(redis.reads()).toBe(1); // no round trip
    expect(await isDeleting(redis.services, user, t0 + REFRESH_AFTER_MS)).toBe(false); // answered from the snapshot…
    expect(redis.pending).toHaveLength(1); // …and refreshed after it
    await Promise.all(redis.pending);
    expect(await isDeleting(redis.services, user, t0 + REFRESH_AFTER_MS + 1)).toBe(true);
    forgetDeletingSnapshot();
  });

  it("an isolate idle for MAX_SNAPSHOT_AGE_MS reads it before answering, so no request past the bound is let in", async () => {
    forgetDeletingSnapshot();
    const redis = fakeRedis();
    const user = newId();
    const t0 = 2_000_000;
    expect(await isDeleting(redis.services, user, t0)).toBe(false);
    redis.deleting.add(user);
    expect(await isDeleting(redis.services, user, t0 + MAX_SNAPSHOT_AGE_MS)).toBe(true);
    expect(redis.pending).toHaveLength(0);
    redis.deleting.delete(user); // finished
    expect(await isDeleting(redis.services, user, t0 + 2 * MAX_SNAPSHOT_AGE_MS)).toBe(false);
    forgetDeletingSnapshot();
  });
});
