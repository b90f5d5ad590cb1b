import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { databaseOf } from "../../src/lib/redis-topology";
import { MAX_DEVICES_PER_USER } from "../../src/notify/devices";
import { notifyKeys, STALE_DEVICES } from "../../src/notify/keys";
import { enqueueFor } from "../../src/notify/events";
import { removeGoneDevice } from "../../src/notify/user-devices";
import { api, newId, show } from "../support/api";
import { databasesEnv, stackDatabases } from "../support/databases";
import { useChaos } from "../support/stack";
import { withServices } from "../counters/support";
import { fcmToken, newSubscriptionKeys, pushTestKeys } from "../support/push";

let env: Partial<Env>;
beforeAll(async () => {
  env = (await pushTestKeys()).env;
});

/** A browser's PushSubscription as the page sends it (`subscription.toJSON()` plus kind). */
async function subscription(endpoint = `https://updates.push.services.mozilla.com/wpush/v2/${crypto.randomUUID()}`) {
  const keys = await newSubscriptionKeys();
  return { kind: "webpush", endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } };
}
const apnsToken = () => [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");

const put = (userId: string, deviceId: string, body: unknown, overrides: Partial<Env> = {}) => api("PUT", `/v1/me/devices/${deviceId}`, { as: { userId }, body, env: { ...env, ...overrides } });
/**
 * Puts the user's list in the cache as a read after the change's stale mark expired would (the
 * mark is removed rather than waited out), so what follows shows that a change drops a cached list.
 */
async function cacheList(userId: string, overrides: Partial<Env> = {}) {
  await withServices({ ...env, ...overrides }, (services) => services.redisFor(userId).del(notifyKeys.devices(userId)));
  const items = await list(userId, overrides);
  const stored = await withServices({ ...env, ...overrides }, (services) => services.redisFor(userId).get(notifyKeys.devices(userId)));
  expect(stored).toEqual(items);
  return items;
}
const list = async (userId: string, overrides: Partial<Env> = {}) => {
  const res = await api("GET", "/v1/me/devices", { as: { userId }, env: { ...env, ...overrides } });
  expect(res.status, show(res)).toBe(200);
  return res.body.items as { deviceId: string; kind: string; endpoint?: string; token?: string }[];
};

/** Deletes the user's devices, so that no other file's send meets an endpoint only this file's env allows. */
async function removeAll(userId: string) {
  for (const d of await list(userId)) expect((await api("DELETE", `/v1/me/devices/${d.deviceId}`, { as: { userId }, env })).status).toBe(200);
}

describe("PUT /v1/me/devices/{deviceId}", () => {
  it("registers each kind and lists them newest first", async () => {
    const me = newId();
    const browser = await subscription();
    const web = await put(me, "browser-1", browser);
    expect(web.status, show(web)).toBe(200);
    expect(web.body).toMatchObject({ device: { deviceId: "browser-1", ...browser, registeredAt: expect.any(String) }, moved: false, evicted: [] });
    expect((await put(me, "pixel", { kind: "fcm", token: fcmToken() })).status).toBe(200);
    const token = apnsToken();
    const phone = await put(me, "iphone", { kind: "apns", token, environment: "sandbox", topic: "com.example.community" });
    expect(phone.status, show(phone)).toBe(200);
    const items = await list(me);
    expect(items.map((d) => d.deviceId)).toEqual(["iphone", "pixel", "browser-1"]);
    expect(items[0]).toMatchObject({ kind: "apns", token, environment: "sandbox", topic: "com.example.community" });
    expect(await cacheList(me)).toEqual(items);
    expect(await list(me)).toEqual(items); // from the cache, the same
  });

  it("re-registering a device id with a new endpoint replaces it (the browser re-subscribed)", async () => {
    const me = newId();
    expect((await put(me, "b", await subscription())).status).toBe(200);
    await cacheList(me);
    const fresh = await subscription();
    expect((await put(me, "b", fresh)).status).toBe(200);
    const items = await list(me);
    expect(items).toHaveLength(1);
    expect(items[0]!.endpoint).toBe(fresh.endpoint);
  });

  it("registering the same endpoint or token again moves it, never duplicates it: under another id, or to another user", async () => {
    const alice = newId();
    const bob = newId();
    const shared = await subscription();
    expect((await put(alice, "laptop", shared)).status).toBe(200);
    expect((await put(alice, "laptop-renamed", shared)).status).toBe(200);
    expect((await cacheList(alice)).map((d) => d.deviceId)).toEqual(["laptop-renamed"]);

    const moved = await put(bob, "shared-pc", shared);
    expect(moved.status, show(moved)).toBe(200);
    expect(moved.body.moved).toBe(true);
    expect(await list(alice)).toEqual([]); // alice's cached list was dropped with the move
    expect((await list(bob)).map((d) => d.deviceId)).toEqual(["shared-pc"]);

    const token = fcmToken(`shared-${newId()}`);
    expect((await put(alice, "phone", { kind: "fcm", token })).status).toBe(200);
    await cacheList(alice);
    expect((await put(bob, "phone", { kind: "fcm", token })).body.moved).toBe(true);
    expect(await list(alice)).toEqual([]);
    expect((await list(bob)).filter((d) => d.token === token)).toHaveLength(1);
  });

  it(`keeps at most ${MAX_DEVICES_PER_USER} devices per user: the oldest registration goes`, async () => {
    const me = newId();
    for (let i = 0; i < MAX_DEVICES_PER_USER; i++) {
      const res = await put(me, `d${i}`, { kind: "fcm", token: fcmToken(`cap-${me}-${i}`) });
      expect(res.status, show(res)).toBe(200);
      expect(res.body.evicted).toEqual([]);
    }
    // Re-registering d0 makes it the newest: d1 is now the oldest.
    expect((await put(me, "d0", { kind: "fcm", token: fcmToken(`cap-${me}-0`) })).body.evicted).toEqual([]);
    const over = await put(me, "d20", { kind: "fcm", token: fcmToken(`cap-${me}-20`) });
    expect(over.status, show(over)).toBe(200);
    expect(over.body.evicted).toEqual(["d1"]);
    const items = await list(me);
    expect(items).toHaveLength(MAX_DEVICES_PER_USER);
    expect(items.map((d) => d.deviceId)).not.toContain("d1");
    expect(items[0]!.deviceId).toBe("d20");
  });

  it("answers 400 naming the field, and changes nothing", async () => {
    const me = newId();
    const good = await subscription();
    const cases: [string, string, unknown, string][] = [
      ["non-https endpoint", "b", { ...good, endpoint: "http://push.example.net/x" }, "endpoint"],
      ["not a URL", "b", { ...good, endpoint: "push.example.net/x" }, "endpoint"],
      ["p256dh too short", "b", { ...good, keys: { ...good.keys, p256dh: good.keys.p256dh.slice(0, 40) } }, "keys.p256dh"],
      ["p256dh a compressed point", "b", { ...good, keys: { ...good.keys, p256dh: "Aw" + good.keys.p256dh.slice(2, 44) } }, "keys.p256dh"],
      ["p256dh not base64url", "b", { ...good, keys: { ...good.keys, p256dh: "!".repeat(87) } }, "keys.p256dh"],
      ["auth not 16 bytes", "b", { ...good, keys: { ...good.keys, auth: "c2hvcnQ" } }, "keys.auth"],
      ["missing keys", "b", { kind: "webpush", endpoint: good.endpoint }, "keys"],
      ["unknown kind", "b", { kind: "sms", token: "x" }, "kind"],
      ["missing kind", "b", { token: "x" }, "kind"],
      ["empty fcm token", "b", { kind: "fcm", token: "" }, "token"],
      ["fcm token not an FCM token", "b", { kind: "fcm", token: "x" }, "token"],
      ["fcm token with a space", "b", { kind: "fcm", token: fcmToken().slice(0, 150) + " x" }, "token"],
      ["apns without topic", "b", { kind: "apns", token: apnsToken(), environment: "production" }, "topic"],
      ["apns bad environment", "b", { kind: "apns", token: apnsToken(), environment: "staging", topic: "com.example.app" }, "environment"],
      ["apns token not hex", "b", { kind: "apns", token: "not-a-token", environment: "production", topic: "com.example.app" }, "token"],
      ["bad deviceId", "has space", good, "deviceId"],
      ["deviceId too long", "x".repeat(65), good, "deviceId"],
    ];
    for (const [what, deviceId, body, field] of cases) {
      const res = await put(me, encodeURIComponent(deviceId), body);
      expect(res.status, `${what}: ${show(res)}`).toBe(400);
      expect(res.body.error.code).toBe("bad_request");
      expect(res.body.error.details.map((d: { field: string }) => d.field), `${what}: ${show(res)}`).toContain(field);
    }
    expect(await list(me)).toEqual([]);
  });

  it("refuses a device of a provider the deployment has no credentials for", async () => {
    const me = newId();
    const cases: [Partial<Env>, unknown, string][] = [
      [{ FCM_SERVICE_ACCOUNT: "" }, { kind: "fcm", token: fcmToken(`t-${me}`) }, "fcm is not configured on this deployment"],
      [{ VAPID_PUBLIC_KEY: "", VAPID_PRIVATE_KEY: "" }, await subscription(), "webpush is not configured on this deployment"],
      [{ APNS_KEY_ID: "", APNS_TEAM_ID: "", APNS_PRIVATE_KEY: "" }, { kind: "apns", token: apnsToken(), environment: "production", topic: "com.example.app" }, "apns is not configured on this deployment"],
    ];
    for (const [off, body, message] of cases) {
      const res = await put(me, "d", body, off);
      expect(res.status, show(res)).toBe(400);
      expect(res.body.error.message).toBe(message);
      expect(res.body.error.details).toEqual([{ field: "kind", message }]);
    }
    expect(await list(me)).toEqual([]);
  });

  it("accepts endpoints on the browsers' push services only: any other address is a 400 naming endpoint", async () => {
    const me = newId();
    for (const endpoint of [
      "https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bH",
      "https://fcm.googleapis.com/wp/dpH5lCsTSSM",
      "https://updates.push.services.mozilla.com/wpush/v2/gAAAAAB",
      "https://web.push.apple.com/QGuQyavXutnMH",
      "https://wns2-par02p.notify.windows.com/w/?token=BQYAAAB",
    ]) {
      const res = await put(me, "ok", await subscription(endpoint));
      expect(res.status, `${endpoint}: ${show(res)}`).toBe(200);
    }
    for (const endpoint of [
      "https://169.254.169.254/latest",
      "https://attacker.example/drip",
      "https://fcm.googleapis.com.attacker.example/wp/1", // a suffix, not the host
      "https://notify.windows.com/w/1", // *.suffix is its subdomains only
      "https://[fd00::1]/push",
      "https://10.0.0.1/push",
      "https://fcm.googleapis.com:8443/wp/1", // not 443
      "https://user:pw@fcm.googleapis.com/wp/1",
      "http://fcm.googleapis.com/wp/1",
      "http://localhost:8090/push/1", // not a configured local push service
    ]) {
      const res = await put(me, "bad", await subscription(endpoint), { ENVIRONMENT: "development" });
      expect(res.status, `${endpoint}: ${show(res)}`).toBe(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field), endpoint).toEqual(["endpoint"]);
    }
    expect((await list(me)).map((d) => d.deviceId)).toEqual(["ok"]);
  });

  it("WEBPUSH_ALLOWED_HOSTS replaces the list; a port or an IP address passes only when named exactly", async () => {
    const me = newId();
    const allowed = { WEBPUSH_ALLOWED_HOSTS: "push.example.net, *.push.example.org, 10.0.0.7:8443" };
    for (const [endpoint, status] of [
      ["https://push.example.net/s/1", 200],
      ["https://eu.push.example.org/s/1", 200],
      ["https://10.0.0.7:8443/s/1", 200],
      ["https://10.0.0.7/s/1", 400],
      ["https://push.example.net:444/s/1", 400],
      ["https://fcm.googleapis.com/wp/1", 400], // the default list is replaced
    ] as const) {
      const res = await put(me, "d", await subscription(endpoint), allowed);
      expect(res.status, `${endpoint}: ${show(res)}`).toBe(status);
    }
    await removeAll(me); // other files' sends (a broadcast pages every user) would drop it: not on their list
  });

  it("accepts the local push services' endpoints (WEBPUSH_LOCAL_ORIGINS) only when ENVIRONMENT=development", async () => {
    const me = newId();
    const local = { WEBPUSH_LOCAL_ORIGINS: "http://localhost:8090,http://127.0.0.1:8090" };
    for (const endpoint of ["http://localhost:8090/push/1", "http://127.0.0.1:8090/push/2"]) {
      const prod = await put(me, "local", await subscription(endpoint), { ...local, ENVIRONMENT: "production" });
      expect(prod.status, show(prod)).toBe(400);
      expect(prod.body.error.details).toEqual([{ field: "endpoint", message: "must be https" }]);
      const dev = await put(me, "local", await subscription(endpoint), { ...local, ENVIRONMENT: "development" });
      expect(dev.status, show(dev)).toBe(200);
    }
    for (const endpoint of ["http://localhost:8091/push/3", "http://192.168.1.5/push"]) {
      const other = await put(me, "lan", await subscription(endpoint), { ...local, ENVIRONMENT: "development" });
      expect(other.status, show(other)).toBe(400);
    }
    await removeAll(me);
  });

  it("applies APNS_TOPIC: a device naming another bundle id is refused", async () => {
    const me = newId();
    const res = await put(me, "i", { kind: "apns", token: apnsToken(), environment: "production", topic: "com.other.app" }, { APNS_TOPIC: "com.example.app, com.example.app.beta" });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.details[0].field).toBe("topic");
    const ok = await put(me, "i", { kind: "apns", token: apnsToken(), environment: "production", topic: "com.example.app.beta" }, { APNS_TOPIC: "com.example.app, com.example.app.beta" });
    expect(ok.status, show(ok)).toBe(200);
  });

  it("needs a token", async () => {
    const res = await api("PUT", "/v1/me/devices/x", { body: await subscription(), env });
    expect(res.status).toBe(401);
  });
});

describe("the cached list", () => {
  it("is marked stale by a change, and no read stores a list while the mark stands (it may predate the commit)", async () => {
    const me = newId();
    expect((await put(me, "b", await subscription())).status).toBe(200);
    const key = notifyKeys.devices(me);
    expect(await withServices(env, (services) => services.redisFor(me).get(key))).toBe(STALE_DEVICES);
    expect(await list(me)).toHaveLength(1); // from Postgres
    const ttl = await withServices(env, async (services) => [await services.redisFor(me).get(key), await services.redisFor(me).ttl(key)] as const);
    expect(ttl[0]).toBe(STALE_DEVICES);
    expect(ttl[1]).toBeGreaterThan(0);
    expect(ttl[1]).toBeLessThanOrEqual(15);
    // Once the mark is gone, the next read stores the list.
    await withServices(env, (services) => services.redisFor(me).del(key));
    expect(await list(me)).toHaveLength(1);
    const stored = await withServices(env, (services) => services.redisFor(me).get(key));
    expect(Array.isArray(stored) && stored.length).toBe(1);
  });
});

describe("DELETE /v1/me/devices/{deviceId}", () => {
  it("deletes the caller's device (idempotent) and only theirs", async () => {
    const me = newId();
    const other = newId();
    expect((await put(me, "b", await subscription())).status).toBe(200);
    expect((await put(other, "b", await subscription())).status).toBe(200);
    await cacheList(me);
    const first = await api("DELETE", "/v1/me/devices/b", { as: { userId: me }, env });
    expect(first.status, show(first)).toBe(200);
    expect(first.body).toEqual({ deviceId: "b", deleted: true });
    expect(await list(me)).toEqual([]);
    const again = await api("DELETE", "/v1/me/devices/b", { as: { userId: me }, env });
    expect(again.body).toEqual({ deviceId: "b", deleted: false });
    expect(await list(other)).toHaveLength(1);
  });
});

describe("a device a push service called gone", () => {
  it("is deleted with its owner's cached list, unless it was registered again since the push was built", async () => {
    const me = newId();
    const built = (await put(me, "b", await subscription())).body.device;
    await cacheList(me);
    expect(await withServices(env, (services) => removeGoneDevice(services, built))).toBe(true);
    expect(await list(me)).toEqual([]);

    const first = (await put(me, "b2", await subscription())).body.device;
    const again = await put(me, "b2", { kind: "webpush", endpoint: first.endpoint, keys: first.keys });
    expect(again.body.device.registeredAt > first.registeredAt).toBe(true);
    expect(await withServices(env, (services) => removeGoneDevice(services, first))).toBe(false);
    expect((await list(me)).map((d) => d.deviceId)).toEqual(["b2"]);
  });
});

describe("GET /v1/devices/webpush-key", () => {
  it("answers the VAPID public key, and 404 where Web Push is not configured", async () => {
    const res = await api("GET", "/v1/devices/webpush-key", { env });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toEqual({ publicKey: env.VAPID_PUBLIC_KEY });
    expect(res.body.publicKey).toMatch(/^[A-Za-z0-9_-]{87}$/);
    const off = await api("GET", "/v1/devices/webpush-key", { env: { VAPID_PUBLIC_KEY: "", VAPID_PRIVATE_KEY: "" } });
    expect(off.status, show(off)).toBe(404);
  });
});

describe.skipIf(stackDatabases().length < 2)("several Redis databases", () => {
  it("caches a user's list on the user's database and drops it there on every change", async () => {
    const databases = databasesEnv();
    const n = stackDatabases().length;
    const me = newId();
    const both = { ...databases };
    expect((await put(me, "b", await subscription(), both)).status).toBe(200);
    expect(await list(me, both)).toHaveLength(1);
    await withServices(both, async (services) => {
      const home = databaseOf(me, n);
      expect(await services.redisAt(home).exists(notifyKeys.devices(me))).toBe(1);
      for (let i = 0; i < n; i++) if (i !== home) expect(await services.redisAt(i).exists(notifyKeys.devices(me))).toBe(0);
    });
    expect((await api("DELETE", "/v1/me/devices/b", { as: { userId: me }, env: { ...env, ...both } })).status).toBe(200);
    await withServices(both, async (services) => expect(await services.redisAt(databaseOf(me, n)).get(notifyKeys.devices(me))).toBe(STALE_DEVICES));
    expect(await list(me, both)).toEqual([]);
  });
});

describe("outages", () => {
  const chaos = useChaos();

  it("reads a cached list in one Redis round trip", async () => {
    const me = newId();
    const through = { ...chaos.current.bindings };
    expect((await put(me, "b", await subscription(), through)).status).toBe(200);
    await withServices(through, (services) => services.redisFor(me).del(notifyKeys.devices(me))); // the change's stale mark expired
    await list(me, through); // fills the cache
    const before = await chaos.current.stats();
    expect(await list(me, through)).toHaveLength(1);
    const after = await chaos.current.stats();
    expect(after.requests - before.requests).toBe(1);
    expect(after.commands - before.commands).toBe(1);
  });

  it("reads an offline user's cached device list and preferences in one Redis round trip before queueing a push", async () => {
    const me = newId();
    const through = { ...chaos.current.bindings };
    expect((await put(me, "b", await subscription(), through)).status).toBe(200);
    await withServices({ ...env, ...through }, (services) => services.redisFor(me).del(notifyKeys.devices(me))); // the change's stale mark expired
    await list(me, through); // fills the device cache
    expect((await api("GET", "/v1/me/notification-preferences", { as: { userId: me }, env: { ...env, ...through } })).status).toBe(200); // fills the preferences cache
    const before = await chaos.current.stats();
    await withServices({ ...env, ...through }, (services) => enqueueFor(services, [me], { kind: "dm", thread: `dm:${me}` }));
    const after = await chaos.current.stats();
    expect(after.requests - before.requests).toBe(1);
    expect(after.commands - before.commands).toBe(1);
  });

  it("with Redis down: lists from Postgres, and refuses a change with 503 that changes nothing", async () => {
    const me = newId();
    const through = { ...chaos.current.bindings };
    expect((await put(me, "kept", await subscription(), through)).status).toBe(200);
    await chaos.current.setRedisDown(true);
    try {
      expect((await list(me, through)).map((d) => d.deviceId)).toEqual(["kept"]);
      const refused = await put(me, "new", await subscription(), through);
      expect(refused.status, show(refused)).toBe(503);
      const notDeleted = await api("DELETE", "/v1/me/devices/kept", { as: { userId: me }, env: { ...env, ...through } });
      expect(notDeleted.status, show(notDeleted)).toBe(503);
    } finally {
      await chaos.current.setRedisDown(false);
    }
    expect((await list(me, through)).map((d) => d.deviceId)).toEqual(["kept"]);
  });
});
