/**
 * `GET /v1/me/export` through the typed client's `exportRecords`: every record kind of a user with
 * posts, follows, followers, likes, favourites, a device, preferences, a chosen author and unread
 * notifications; no device endpoint, key or token anywhere in it; the posts paged past one page;
 * and one export an hour (429 with Retry-After, an ExportError in the client).
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { POSTS_PAGE } from "../../src/accounts/export";
import { ExportError, exportRecords, type ExportRecord } from "../../src/client/export";
import { safetyExportRecords, type SafetyExportRecord } from "../../src/safety/export";
import { withServices } from "../counters/support";
import { api, newId, show, tokenFor } from "../support/api";
import { fcmToken, newSubscriptionKeys, pushTestKeys } from "../support/push";

const service = { userId: "9000", role: "service" as const };

// The typed client's record type carries every record the safety capability exports.
const clientKnowsSafetyRecords: SafetyExportRecord extends ExportRecord ? true : never = true;
void clientKnowsSafetyRecords;

async function ok(res: Promise<{ status: number; body: any }>, status = 200) {
  const r = await res;
  expect(r.status, show(r as never)).toBe(status);
  return r.body;
}

async function readAll(userId: string): Promise<ExportRecord[]> {
  const jwt = await tokenFor(userId);
  const records: ExportRecord[] = [];
  for await (const record of exportRecords({ baseUrl: "http://edge.test", token: () => jwt, fetch: (r) => SELF.fetch(r) })) records.push(record);
  return records;
}

describe("GET /v1/me/export", () => {
  it("streams every record kind, one JSON a line, with no device secret, and refuses a second export within the hour", async () => {
    const [me, star, fan] = [newId(), newId(), newId()];
    const as = (userId: string) => ({ as: { userId } });
    const pushEnv = (await pushTestKeys()).env;
    const posts: string[] = [];
    for (let i = 0; i < POSTS_PAGE + 3; i++) posts.push((await ok(api("POST", "/v1/posts", { ...as(me), body: { text: `post ${i}` } }), 201)).id);
    const starPost = (await ok(api("POST", "/v1/posts", { ...as(star), body: { text: "star" } }), 201)).id;
    await ok(api("PUT", `/v1/me/following/${star}`, as(me)));
    await ok(api("PUT", `/v1/me/following/${me}`, as(fan)));
    await ok(api("PUT", `/v1/posts/${starPost}/likes/me`, as(me)));
    await ok(api("PUT", `/v1/posts/${starPost}/favorites/me`, as(me)));
    await ok(api("PUT", `/v1/posts/${posts[0]}/likes/me`, as(fan)));
    await ok(api("PUT", `/v1/me/notification-authors/${star}`, as(me)));
    await ok(api("PUT", "/v1/me/notification-preferences", { ...as(me), body: { kinds: { broadcast: false } } }));
    const keys = await newSubscriptionKeys();
    const endpoint = `https://fcm.googleapis.com/fcm/send/${crypto.randomUUID()}`;
    const token = fcmToken();
    await ok(api("PUT", "/v1/me/devices/browser", { ...as(me), env: pushEnv, body: { kind: "webpush", endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } } }));
    await ok(api("PUT", "/v1/me/devices/phone", { ...as(me), env: pushEnv, body: { kind: "fcm", token } }));
    await ok(api("POST", `/v1/users/${me}/notifications`, { as: service, body: { type: "reply", count: 2 } }));
    // Blocks and mutes made (an ended mute is not exported), blocks of me by others (not mine), a report made.
    const [blocked, muted, ended, blocker, reported] = [newId(), newId(), newId(), newId(), newId()];
    await ok(api("PUT", `/v1/me/blocks/${blocked}`, as(me)));
    await ok(api("PUT", `/v1/me/mutes/${muted}`, { ...as(me), body: { notifications: false, durationSeconds: 3600 } }));
    await ok(api("PUT", `/v1/me/mutes/${ended}`, { ...as(me), body: { notifications: true, durationSeconds: 60 } }));
    await ok(api("PUT", `/v1/me/blocks/${me}`, as(blocker)));
    const reportedPost = (await ok(api("POST", "/v1/posts", { ...as(reported), body: { text: "bad" } }), 201)).id;
    const report = await ok(api("POST", "/v1/reports", { ...as(me), body: { userId: reported, postIds: [reportedPost], category: "spam", comment: "buy followers" } }), 201);
    await ok(api("POST", "/v1/reports", { ...as(blocker), body: { userId: me, category: "other", comment: "" } }), 201);

    const records = await readAll(me);
    const kinds = new Set(records.map((r) => r.type));
    for (const kind of ["account", "post", "following", "followers", "like", "favorite", "device", "preferences", "chosen_author", "block", "mute", "report", "unread"]) expect(kinds, kind).toContain(kind);
    expect(kinds).not.toContain("error");
    const exported = records.filter((r): r is Extract<ExportRecord, { type: "post" }> => r.type === "post");
    expect(exported.map((p) => p.id).sort()).toEqual([...posts].sort());
    expect(exported.find((p) => p.id === posts[0])!.counts.likes).toBe(1);
    expect(records.filter((r) => r.type === "following")).toEqual([{ type: "following", userId: star, followedAt: expect.any(String) }]);
    expect(records.find((r) => r.type === "followers")).toEqual({ type: "followers", count: 1 });
    expect(records.filter((r) => r.type === "like")).toEqual([{ type: "like", postId: starPost, at: expect.any(String) }]);
    expect(records.filter((r) => r.type === "device").map((d) => (d as { kind: string }).kind).sort()).toEqual(["fcm", "webpush"]);
    expect(records.find((r) => r.type === "chosen_author")).toMatchObject({ authorId: star });
    expect(records.find((r) => r.type === "preferences")).toMatchObject({ preferences: { kinds: { broadcast: false } } });
    expect(JSON.stringify(records.find((r) => r.type === "unread"))).toContain("reply");
    expect(records.filter((r) => r.type === "block")).toEqual([{ type: "block", userId: blocked, blockedAt: expect.any(String) }]);
    expect(records.filter((r) => r.type === "mute").map((m) => (m as { userId: string }).userId).sort()).toEqual([muted, ended].sort());
    // The safety pages one row at a time, two minutes on: the 60 s mute has ended and is not exported.
    const later: SafetyExportRecord[] = [];
    await withServices({ SAFETY_CLOCK_OFFSET_MS: "120000" }, async (services) => {
      for await (const page of safetyExportRecords(services, me, 1)) later.push(...(expect(page.length).toBe(1), page));
    });
    expect(later.map((r) => r.type)).toEqual(["block", "mute", "report"]);
    expect(later[1]).toEqual({ type: "mute", userId: muted, notifications: false, expiresAt: expect.any(String), mutedAt: expect.any(String) });
    expect(records.filter((r) => r.type === "report")).toEqual([
      { type: "report", id: report.id, userId: reported, category: "spam", comment: "buy followers", postIds: [reportedPost], status: "open", createdAt: report.createdAt, resolvedAt: null, resolution: null },
    ]);
    const text = JSON.stringify(records);
    for (const secret of [endpoint, keys.p256dh, keys.auth, token]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/endpoint|p256dh|"token"/);

    // The wire format itself: NDJSON, one record a line.
    const again = await SELF.fetch(new Request("http://edge.test/v1/me/export", { headers: { Authorization: `Bearer ${await tokenFor(me)}` } }));
    expect(again.status).toBe(429);
    expect(Number(again.headers.get("Retry-After"))).toBeGreaterThan(3500);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    const refused = await readAll(me).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ExportError);
    expect((refused as ExportError).status).toBe(429);
    expect((refused as ExportError).retryAfterSeconds).toBeGreaterThan(3500);
  });

  it("answers application/x-ndjson, each line one JSON object", async () => {
    const me = newId();
    await ok(api("POST", "/v1/posts", { as: { userId: me }, body: { text: "line" } }), 201);
    const res = await SELF.fetch(new Request("http://edge.test/v1/me/export", { headers: { Authorization: `Bearer ${await tokenFor(me)}` } }));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/x-ndjson/);
    const lines = (await res.text()).split("\n").filter(Boolean);
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(["account", "post", "followers", "preferences", "unread"]);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty("type");
  });
});
