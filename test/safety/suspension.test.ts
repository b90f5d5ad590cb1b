import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { createEventBus } from "../../src/lib/events";
import { createServices } from "../../src/lib/services";
import { enqueueFor } from "../../src/notify/events";
import { moderationKeys } from "../../src/safety/keys";
import { api, newId, show, tokenFor } from "../support/api";
import { closeLive, openLive, until } from "../badges/live-helpers";
import { post } from "../feed/support";
import { ok } from "./support";
import { recordingQueue } from "../support/notify-flow";
import { stackPushEnv } from "../support/push-services";
import { fcmToken } from "../support/push";

const as = (userId: string) => ({ as: { userId } });
const admin = { as: { userId: "1", role: "admin" as const } };

describe("PUT /v1/admin/users/{id}/suspension", () => {
  it("refuses every request with the user's token (403 suspended) and hides their posts from profile and post reads; lifting restores exactly", async () => {
    const user = newId();
    const ids = [await post({ userId: user }, "one"), await post({ userId: user }, "two")];
    const profileBefore = (await ok(api("GET", `/v1/users/${user}/posts`))).body;
    const postBefore = (await ok(api("GET", `/v1/posts/${ids[0]}`))).body;

    const put = await ok(api("PUT", `/v1/admin/users/${user}/suspension`, { ...admin, body: { reason: "spam wave" } }));
    expect(put.body).toEqual({ userId: user, suspended: true, reason: "spam wave", suspendedAt: expect.any(String), changed: true });
    const repeat = await ok(api("PUT", `/v1/admin/users/${user}/suspension`, { ...admin, body: { reason: "other" } }));
    expect(repeat.body).toEqual({ ...put.body, changed: false });

    for (const [method, path, body] of [["GET", "/v1/me/blocks"], ["POST", "/v1/posts", { text: "let me in" }], ["PUT", `/v1/me/following/${newId()}`], ["GET", `/v1/users/${user}/posts`]] as const) {
      const res = await api(method, path, { ...as(user), ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}: ${show(res)}`).toBe(403);
      expect(res.body.error.code).toBe("suspended");
    }
    expect((await ok(api("GET", `/v1/users/${user}/posts`))).body).toEqual({ items: [], nextCursor: null });
    expect((await api("GET", `/v1/posts/${ids[0]}`)).status).toBe(404);

    const lifted = await ok(api("DELETE", `/v1/admin/users/${user}/suspension`, admin));
    expect(lifted.body).toEqual({ userId: user, suspended: false, reason: null, suspendedAt: null, changed: true });
    expect((await ok(api("DELETE", `/v1/admin/users/${user}/suspension`, admin))).body.changed).toBe(false);
    await ok(api("GET", "/v1/me/blocks", as(user)));
    expect((await ok(api("GET", `/v1/users/${user}/posts`))).body).toEqual(profileBefore);
    expect((await ok(api("GET", `/v1/posts/${ids[0]}`))).body).toEqual(postBefore);
  });

  it("closes the user's badge sockets with 4003 and refuses new ones (403 suspended) until lifted", async () => {
    const user = newId();
    const device = await openLive(user);
    await until(() => device.state, (state) => state !== null);
    await ok(api("PUT", `/v1/admin/users/${user}/suspension`, { ...admin, body: { reason: "x" } }));
    await until(() => device.closed, (closed) => closed !== null);
    expect(device.closed).toEqual({ code: 4003, reason: "suspended" });
    const upgrade = await SELF.fetch(`http://edge.test/v1/me/live?token=${await tokenFor(user)}`, { headers: { Upgrade: "websocket" } });
    expect(upgrade.status).toBe(403);
    expect(((await upgrade.json()) as { error: { code: string } }).error.code).toBe("suspended");
    await ok(api("DELETE", `/v1/admin/users/${user}/suspension`, admin));
    const again = await openLive(user);
    await until(() => again.state, (state) => state !== null);
    await closeLive();
  });

  it("answers 400 naming reason without one, and 403 for a caller who is not an admin", async () => {
    const user = newId();
    const bad = await api("PUT", `/v1/admin/users/${user}/suspension`, { ...admin, body: {} });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe("reason");
    expect((await api("PUT", `/v1/admin/users/${user}/suspension`, { ...as(newId()), body: { reason: "x" } })).status).toBe(403);
    expect((await api("DELETE", `/v1/admin/users/${user}/suspension`, as(newId()))).status).toBe(403);
    await ok(api("GET", "/v1/me/blocks", as(user)));
  });

  it("holds when the cached set is lost: the next write rebuilds it from Postgres", async () => {
    const [kept, added] = [newId(), newId()];
    await ok(api("PUT", `/v1/admin/users/${kept}/suspension`, { ...admin, body: { reason: "first" } }));
    const redis = (await import("../../src/lib/redis")).redisAt(env as unknown as Env, 0);
    await redis.del(moderationKeys.suspended());
    await ok(api("PUT", `/v1/admin/users/${added}/suspension`, { ...admin, body: { reason: "second" } }));
    const members = await redis.zrange<string[]>(moderationKeys.suspended(), 0, -1);
    expect(members.map(String)).toEqual(expect.arrayContaining([kept, added, "v", "t"]));
    for (const u of [kept, added]) expect((await api("GET", "/v1/me/blocks", as(u))).body.error.code).toBe("suspended");
    for (const u of [kept, added]) await ok(api("DELETE", `/v1/admin/users/${u}/suspension`, admin));
  });

  it("counts and pushes nothing a suspended sender's notifications and DMs would (200, applied false, suppressed suspended); after the lift they count", async () => {
    const [user, to] = [newId(), newId()];
    const service = { as: { userId: "9000000000000001", role: "service" as const } };
    const badges = async () => ({ n: (await ok(api("GET", "/v1/me/notifications", as(to)))).body, d: (await ok(api("GET", "/v1/me/dms", as(to)))).body });
    await ok(api("POST", `/v1/users/${to}/notifications`, { ...service, body: { type: "like", count: 2, from: newId() } }));
    const before = await badges();
    await ok(api("PUT", `/v1/admin/users/${user}/suspension`, { ...admin, body: { reason: "x" } }));
    const note = await ok(api("POST", `/v1/users/${to}/notifications`, { ...service, body: { type: "like", count: 3, from: user } }));
    expect(note.body).toEqual({ userId: to, type: "like", count: 2, total: 2, applied: false, suppressed: "suspended" });
    const dm = await ok(api("POST", `/v1/dms/${to}`, { ...service, body: { from: user, count: 4 } }));
    expect(dm.body).toEqual({ userId: to, peerId: user, count: 0, total: 0, applied: false, suppressed: "suspended" });
    expect(await badges()).toEqual(before);
    await ok(api("DELETE", `/v1/admin/users/${user}/suspension`, admin));
    expect((await ok(api("POST", `/v1/users/${to}/notifications`, { ...service, body: { type: "like", count: 3, from: user } }))).body).toMatchObject({ applied: true, count: 5 });
    expect((await ok(api("POST", `/v1/dms/${to}`, { ...service, body: { from: user, count: 4 } }))).body).toMatchObject({ applied: true, total: 4 });
  });

  it("pushes nothing a suspended user caused (notify's enqueue), while the same event from anyone else is queued", async () => {
    const [user, someone, to] = [newId(), newId(), newId()];
    const { queue, queued } = recordingQueue();
    const pushEnv = { ...(env as unknown as Env), ...stackPushEnv(), ENVIRONMENT: "development", NOTIFY_QUEUE: queue } as Env;
    await ok(api("PUT", "/v1/me/devices/pixel", { as: { userId: to }, env: pushEnv, body: { kind: "fcm", token: fcmToken() } }));
    await ok(api("PUT", `/v1/admin/users/${user}/suspension`, { ...admin, body: { reason: "x" } }));
    const { services, close } = createServices(pushEnv, { waitUntil: () => undefined }, createEventBus([]));
    try {
      const event = (from: string) => ({ kind: "notification" as const, type: "like", thread: `likes:${from}`, from });
      expect(await enqueueFor(services, [to], event(user))).toEqual({ users: 0, devices: 0 });
      expect(queued).toHaveLength(0);
      expect((await enqueueFor(services, [to], event(someone))).users).toBe(1);
      expect(queued).toHaveLength(1);
    } finally {
      await close();
      await ok(api("DELETE", `/v1/admin/users/${user}/suspension`, admin));
    }
  });
});
