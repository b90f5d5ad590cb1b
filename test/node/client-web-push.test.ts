/**
 * `registerWebPush` / `unregisterWebPush` (community-edge/client) and the service-worker helper
 * (community-edge/client/service-worker) against fakes of the browser's PushManager, registration,
 * clients and badge: what is subscribed, what is PUT, what is shown, what a click opens. The same
 * code in a real Chromium is `npm run check:browser -- push`.
 */
import { describe, expect, it } from "vitest";
import { registerWebPush, unregisterWebPush, webPushDeviceId, WebPushRegistrationError } from "community-edge/client";
import { handleNotificationClick, installPushHandlers, type PushNotificationOptions, type PushScope } from "community-edge/client/service-worker";

const VAPID_KEY = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
const OTHER_KEY = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
const KEYS = { p256dh: OTHER_KEY, auth: "BTBZMqHH6r4Tts7J_aSIgg" };
const bytes = (b64url: string) => new Uint8Array(Buffer.from(b64url, "base64url"));

/** A browser's PushManager: one subscription at a time, as browsers hold one per service worker. */
function fakeRegistration(existing?: { endpoint: string; key: string | null }) {
  const calls: string[] = [];
  const subscriptionFor = (endpoint: string, key: ArrayBuffer | null) => ({
    endpoint,
    options: { applicationServerKey: key },
    toJSON: () => ({ endpoint, expirationTime: null, keys: KEYS }),
    unsubscribe: async () => {
      calls.push(`unsubscribe ${endpoint}`);
      current = null;
      return true;
    },
  });
  let current: ReturnType<typeof subscriptionFor> | null = existing ? subscriptionFor(existing.endpoint, existing.key ? bytes(existing.key).buffer : null) : null;
  let made = 0;
  const registration = {
    pushManager: {
      getSubscription: async () => current,
      subscribe: async (options: { userVisibleOnly: boolean; applicationServerKey: ArrayBuffer }) => {
        if (current) throw new Error("InvalidStateError: a subscription with a different applicationServerKey already exists");
        calls.push(`subscribe userVisibleOnly=${options.userVisibleOnly} key=${Buffer.from(options.applicationServerKey).toString("base64url")}`);
        current = subscriptionFor(`https://push.example.net/send/new-${++made}`, options.applicationServerKey);
        return current;
      },
    },
  };
  return { registration, calls };
}

/** The API as a `fetch`: records each request, answers as the devices routes do. */
function fakeApi(answer: (method: string, path: string, body: unknown) => [number, unknown] = defaultAnswer) {
  const requests: { method: string; path: string; authorization: string | null; body: unknown }[] = [];
  const fetch = async (request: Request) => {
    const body = request.body ? await request.json() : undefined;
    const path = new URL(request.url).pathname;
    requests.push({ method: request.method, path, authorization: request.headers.get("authorization"), body });
    const [status, json] = answer(request.method, path, body);
    return new Response(JSON.stringify(json), { status, headers: { "content-type": "application/json" } });
  };
  return { options: { baseUrl: "https://edge.example.com", token: () => "jwt-1", fetch }, requests };
}

function defaultAnswer(method: string, path: string, body: unknown): [number, unknown] {
  const deviceId = decodeURIComponent(path.split("/").pop()!);
  if (method === "DELETE") return [200, { deviceId, deleted: true }];
  return [200, { device: { ...(body as object), deviceId, registeredAt: "2026-11-26T10:00:00.000Z" }, moved: false, evicted: [] }];
}

describe("registerWebPush", () => {
  it("subscribes user-visible with the VAPID key and PUTs the subscription as a webpush device", async () => {
    const { registration, calls } = fakeRegistration();
    const api = fakeApi();
    const device = await registerWebPush(registration, VAPID_KEY, { ...api.options, deviceId: "browser-1" });
    expect(calls).toEqual([`subscribe userVisibleOnly=true key=${VAPID_KEY}`]);
    expect(api.requests).toEqual([
      { method: "PUT", path: "/v1/me/devices/browser-1", authorization: "Bearer jwt-1", body: { kind: "webpush", endpoint: "https://push.example.net/send/new-1", keys: KEYS } },
    ]);
    expect(device).toMatchObject({ deviceId: "browser-1", kind: "webpush", endpoint: "https://push.example.net/send/new-1" });
  });

  it("without a deviceId, names the device after its endpoint: the same id each time, another for another endpoint", async () => {
    const endpoint = "https://push.example.net/send/kept";
    const first = fakeApi();
    await registerWebPush(fakeRegistration({ endpoint, key: VAPID_KEY }).registration, VAPID_KEY, first.options);
    const again = fakeApi();
    await registerWebPush(fakeRegistration({ endpoint, key: VAPID_KEY }).registration, VAPID_KEY, again.options);
    const id = await webPushDeviceId(endpoint);
    expect(id).toMatch(/^webpush-[A-Za-z0-9_-]{32}$/);
    expect(first.requests.map((r) => r.path)).toEqual([`/v1/me/devices/${id}`]);
    expect(again.requests.map((r) => r.path)).toEqual([`/v1/me/devices/${id}`]);
    expect(await webPushDeviceId("https://push.example.net/send/other")).not.toBe(id);
  });

  it("reuses a subscription made with the same key (no new subscribe), and registers it again", async () => {
    const { registration, calls } = fakeRegistration({ endpoint: "https://push.example.net/send/kept", key: VAPID_KEY });
    const api = fakeApi();
    await registerWebPush(registration, bytes(VAPID_KEY), { ...api.options, deviceId: "browser-1" });
    expect(calls).toEqual([]);
    expect(api.requests.map((r) => [r.method, (r.body as { endpoint?: string } | undefined)?.endpoint])).toEqual([["PUT", "https://push.example.net/send/kept"]]);
  });

  it("replaces a subscription made with another key (or none): unsubscribes, deletes its device, subscribes anew", async () => {
    for (const key of [OTHER_KEY, null]) {
      const old = "https://push.example.net/send/old";
      const { registration, calls } = fakeRegistration({ endpoint: old, key });
      const api = fakeApi();
      const device = await registerWebPush(registration, VAPID_KEY, api.options);
      expect(calls).toEqual([`unsubscribe ${old}`, `subscribe userVisibleOnly=true key=${VAPID_KEY}`]);
      expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        `DELETE /v1/me/devices/${await webPushDeviceId(old)}`,
        `PUT /v1/me/devices/${await webPushDeviceId("https://push.example.net/send/new-1")}`,
      ]);
      expect(device).toMatchObject({ endpoint: "https://push.example.net/send/new-1" });
    }
  });

  it("rejects with the API's error when the registration is refused", async () => {
    const api = fakeApi(() => [400, { error: { code: "bad_request", message: "webpush is not configured on this deployment", details: [{ field: "kind", message: "webpush is not configured on this deployment" }] } }]);
    const refused = registerWebPush(fakeRegistration().registration, VAPID_KEY, api.options);
    await expect(refused).rejects.toBeInstanceOf(WebPushRegistrationError);
    await expect(refused).rejects.toMatchObject({ status: 400, error: { code: "bad_request", message: "webpush is not configured on this deployment" } });
  });
});

describe("unregisterWebPush", () => {
  it("unsubscribes and deletes the device named after the endpoint", async () => {
    const endpoint = "https://push.example.net/send/kept";
    const { registration, calls } = fakeRegistration({ endpoint, key: VAPID_KEY });
    const api = fakeApi();
    const result = await unregisterWebPush(registration, api.options);
    const id = await webPushDeviceId(endpoint);
    expect(result).toEqual({ deviceId: id, deleted: true });
    expect(calls).toEqual([`unsubscribe ${endpoint}`]);
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`DELETE /v1/me/devices/${id}`]);
  });

  it("without a subscription or a deviceId, asks the API nothing", async () => {
    const api = fakeApi();
    expect(await unregisterWebPush(fakeRegistration().registration, api.options)).toEqual({ deviceId: null, deleted: false });
    expect(api.requests).toEqual([]);
  });
});

/** A service worker's globals: what is shown, the badge, the windows, and the installed listeners. */
function fakeScope({ refuseOptions = false, windows = [] as string[], badging = true } = {}) {
  const shown: { title: string; options: PushNotificationOptions | undefined }[] = [];
  const badge: string[] = [];
  const focused: string[] = [];
  const opened: string[] = [];
  const listeners = new Map<string, (event: unknown) => void>();
  const scope: PushScope = {
    registration: {
      scope: "https://app.example.com/",
      async showNotification(title, options) {
        if (refuseOptions && options?.tag) throw new TypeError("refused");
        shown.push({ title, options });
      },
    },
    clients: {
      matchAll: async () => windows.map((url) => ({ url, focus: async () => void focused.push(url) })),
      openWindow: async (url) => void opened.push(url),
    },
    navigator: badging ? { setAppBadge: async (n) => void badge.push(`set ${n}`), clearAppBadge: async () => void badge.push("clear") } : {},
    addEventListener: (type, listener) => void listeners.set(type, listener),
  };
  return { scope, shown, badge, focused, opened, listeners };
}

/** Dispatches a push with `text` as its data (`null`: a push without data) and waits for it. */
async function push(listeners: Map<string, (event: unknown) => void>, text: string | null) {
  const pending: Promise<unknown>[] = [];
  listeners.get("push")!({ data: text === null ? null : { text: () => text }, waitUntil: (p: Promise<unknown>) => void pending.push(p) });
  expect(pending).toHaveLength(1); // inside waitUntil, or the browser may stop the worker first
  await Promise.all(pending);
}

describe("the service worker's push handler", () => {
  it("shows exactly the payload's title, body and tag, keeps the url for a click, and sets the badge to the payload's number", async () => {
    const { scope, shown, badge, listeners } = fakeScope();
    installPushHandlers(scope);
    await push(listeners, JSON.stringify({ title: "Ada replied", body: "Sounds good", url: "/threads/42", tag: "dm:42", badge: 7 }));
    expect(shown).toEqual([{ title: "Ada replied", options: { body: "Sounds good", tag: "dm:42", renotify: true, data: { url: "/threads/42", badge: 7 } } }]);
    expect(badge).toEqual(["set 7"]);
  });

  it("clears the badge at 0, and leaves it alone when the push carries none or the browser has no Badging API", async () => {
    const zero = fakeScope();
    installPushHandlers(zero.scope);
    await push(zero.listeners, JSON.stringify({ title: "t", badge: 0 }));
    await push(zero.listeners, JSON.stringify({ title: "t" }));
    expect(zero.badge).toEqual(["clear"]);
    const without = fakeScope({ badging: false });
    installPushHandlers(without.scope);
    await push(without.listeners, JSON.stringify({ title: "t", badge: 3 }));
    expect(without.shown.map((s) => s.title)).toEqual(["t"]);
  });

  it("never stays silent: no data, not JSON, wrong types or a refused option still show a notification", async () => {
    const { scope, shown, badge, listeners } = fakeScope();
    installPushHandlers(scope, { defaultTitle: "Community" });
    for (const text of [null, "{not json", "42", JSON.stringify({ title: 5, body: ["x"], badge: "7", url: {} })]) await push(listeners, text);
    expect(shown).toEqual(Array(4).fill({ title: "Community", options: { data: { url: "https://app.example.com/" } } }));
    expect(badge).toEqual([]);

    const refusing = fakeScope({ refuseOptions: true });
    installPushHandlers(refusing.scope);
    await push(refusing.listeners, JSON.stringify({ title: "Ada replied", tag: "dm:42", badge: 2 }));
    expect(refusing.shown).toEqual([{ title: "Ada replied", options: { data: { url: "https://app.example.com/", badge: 2 } } }]);
  });
});

describe("the service worker's click handler", () => {
  async function click(scope: PushScope, data: unknown) {
    const pending: Promise<unknown>[] = [];
    let closed = false;
    handleNotificationClick({ notification: { data, close: () => void (closed = true) }, waitUntil: (p) => void pending.push(p) }, scope);
    await Promise.all(pending);
    return closed;
  }

  it("opens the notification's url (resolved against the scope) when no window shows it", async () => {
    const { scope, opened, focused } = fakeScope({ windows: ["https://app.example.com/"] });
    expect(await click(scope, { url: "/threads/42", badge: 1 })).toBe(true);
    expect(opened).toEqual(["https://app.example.com/threads/42"]);
    expect(focused).toEqual([]);
  });

  it("focuses a window already at the url instead of opening another", async () => {
    const { scope, opened, focused } = fakeScope({ windows: ["https://app.example.com/", "https://app.example.com/threads/42"] });
    await click(scope, { url: "https://app.example.com/threads/42" });
    expect(focused).toEqual(["https://app.example.com/threads/42"]);
    expect(opened).toEqual([]);
  });

  it("never leaves the scope's origin: a url of another host, however spelled, opens the scope instead", async () => {
    const escapes = ["/\\evil.example/login", "/\\\\evil.example", "/%5Cevil.example", "\t//evil.example", "/\t/evil.example", "//evil.example", "https://evil.example/login", "javascript:alert(1)"];
    for (const url of escapes) {
      const { scope, opened } = fakeScope();
      await click(scope, { url });
      expect(opened, url).toEqual(["https://app.example.com/"]);
    }
    // Nor is it kept in the notification's data, which a click handler of the page's own reads.
    const { scope, shown, listeners } = fakeScope();
    installPushHandlers(scope);
    for (const url of escapes) await push(listeners, JSON.stringify({ title: "t", url }));
    expect(shown.map((s) => (s.options?.data as { url: string }).url)).toEqual(escapes.map(() => "https://app.example.com/"));
  });

  it("opens the scope for a notification without a url", async () => {
    const { scope, opened } = fakeScope();
    await click(scope, null);
    expect(opened).toEqual(["https://app.example.com/"]);
  });
});
