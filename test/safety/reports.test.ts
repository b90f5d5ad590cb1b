import { describe, expect, it } from "vitest";
import { eventually, feed, follow, post } from "../feed/support";
import { api, newId, show } from "../support/api";
import { ok } from "./support";

const as = (userId: string) => ({ as: { userId } });
const admin = { as: { userId: "1", role: "admin" as const } };

/** The open report of `userId` in the queue (walking its pages), or undefined. */
async function queued(userId: string, status: "open" | "resolved" = "open") {
  let cursor: string | null = null;
  for (let pages = 0; pages < 200; pages++) {
    const page: { body: { items: { userId: string }[]; nextCursor: string | null } } = await ok(api("GET", `/v1/admin/reports?status=${status}&limit=100${cursor ? `&cursor=${cursor}` : ""}`, admin));
    const found = page.body.items.find((r) => r.userId === userId);
    if (found) return found as any;
    cursor = page.body.nextCursor;
    if (!cursor) return undefined;
  }
  throw new Error("too many pages");
}

describe("POST /v1/reports", () => {
  it("opens a report (201) keeping the posts' text as posted; the same reporter's next report of that user adds to it (200, same id)", async () => {
    const [reporter, target] = [newId(), newId()];
    const [p1, p2] = [await post({ userId: target }, "first words"), await post({ userId: target }, "second words")];
    const first = await api("POST", "/v1/reports", { ...as(reporter), body: { userId: target, postIds: [p1], category: "harassment", comment: "rude" } });
    expect(first.status, show(first)).toBe(201);
    expect(first.body).toEqual({ id: expect.any(String), userId: target, category: "harassment", postIds: [p1], status: "open", createdAt: expect.any(String), updatedAt: expect.any(String) });
    const again = await api("POST", "/v1/reports", { ...as(reporter), body: { userId: target, postIds: [p2, p1], category: "spam", comment: "again" } });
    expect(again.status, show(again)).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, category: "harassment", postIds: [p1, p2].sort() });

    // The author deletes a post: the operator still reads what was reported.
    await ok(api("DELETE", `/v1/posts/${p1}`, as(target)));
    const report = await queued(target);
    expect(report).toMatchObject({ id: first.body.id, status: "open", reporterId: reporter, category: "harassment", comment: "rude\nagain", resolution: null, actions: [] });
    expect(report.ageSeconds).toBeGreaterThanOrEqual(0);
    expect(report.posts).toEqual([
      { postId: p1, text: "first words", reportedAt: expect.any(String), state: "deleted" },
      { postId: p2, text: "second words", reportedAt: expect.any(String), state: "live" },
    ]);
    // Another reporter's report of the same user is a report of its own.
    const other = await api("POST", "/v1/reports", { ...as(newId()), body: { userId: target, category: "spam" } });
    expect(other.status, show(other)).toBe(201);
    expect(other.body.id).not.toBe(first.body.id);
  });

  it("answers 400 naming the field, and opens nothing, for a bad body", async () => {
    const [reporter, target, someoneElse] = [newId(), newId(), newId()];
    const theirs = await post({ userId: someoneElse });
    const cases: [unknown, string][] = [
      [{ userId: reporter, category: "spam" }, "userId"],
      [{ userId: "0", category: "spam" }, "userId"],
      [{ userId: target, category: "rude" }, "category"],
      [{ userId: target, category: "spam", comment: "x".repeat(1001) }, "comment"],
      [{ userId: target, category: "spam", postIds: Array.from({ length: 21 }, (_, i) => String(i + 1)) }, "postIds"],
      [{ userId: target, category: "spam", postIds: [theirs] }, "postIds"],
    ];
    for (const [body, field] of cases) {
      const res = await api("POST", "/v1/reports", { ...as(reporter), body });
      expect(res.status, show(res)).toBe(400);
      expect(res.body.error.details[0].field, JSON.stringify(body)).toBe(field);
    }
    expect(await queued(target)).toBeUndefined();
  });

  it("is rate-limited per reporter by a limit of its own (429 with Retry-After), other reporters unaffected", async () => {
    const reporter = newId();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await api("POST", "/v1/reports", { ...as(reporter), body: { userId: newId(), category: "spam" } })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(201));
    const refused = await api("POST", "/v1/reports", { ...as(reporter), body: { userId: newId(), category: "spam" } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("60");
    expect((await api("POST", "/v1/reports", { ...as(newId()), body: { userId: newId(), category: "spam" } })).status).toBe(201);
    // The reporter's writes elsewhere are not spent by reports.
    await ok(api("PUT", `/v1/me/blocks/${newId()}`, as(reporter)));
  });

  it("answers 401 without a token; the queue and the actions are the operators' only (403)", async () => {
    expect((await api("POST", "/v1/reports", { body: { userId: newId(), category: "spam" } })).status).toBe(401);
    expect((await api("GET", "/v1/admin/reports", as(newId()))).status).toBe(403);
    expect((await api("POST", "/v1/admin/reports/1/actions", { ...as(newId()), body: { action: "dismiss" } })).status).toBe(403);
  });
});

describe("GET /v1/admin/reports", () => {
  it("lists open reports oldest first, paging without gaps; resolved ones apart", async () => {
    const targets = [newId(), newId(), newId()];
    const ids: string[] = [];
    for (const t of targets) ids.push((await api("POST", "/v1/reports", { ...as(newId()), body: { userId: t, category: "other" } })).body.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 500; pages++) {
      const page: any = await ok(api("GET", `/v1/admin/reports?limit=7${cursor ? `&cursor=${cursor}` : ""}`, admin));
      for (const r of page.body.items) expect(r.status).toBe("open");
      seen.push(...page.body.items.map((r: { id: string }) => r.id));
      cursor = page.body.nextCursor;
      if (!cursor) break;
    }
    expect(seen.filter((id) => ids.includes(id))).toEqual(ids);
    expect(new Set(seen).size).toBe(seen.length);
    const bad = await api("GET", "/v1/admin/reports?status=closed", admin);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe("status");
  });
});

describe("the console's Reports figures (GET /v1/admin/status)", () => {
  it("count the open reports and date the oldest, from the reports table", async () => {
    const target = newId();
    const { createdAt } = (await api("POST", "/v1/reports", { ...as(newId()), body: { userId: target, category: "spam" } })).body;
    const opened = (await ok(api("GET", "/v1/admin/status", admin))).body.reports;
    // Other files may open or resolve reports meanwhile: at least this one is open, and none is younger than the oldest.
    expect(opened.open).toBeGreaterThanOrEqual(1);
    expect(Date.parse(opened.oldestOpenAt)).toBeLessThanOrEqual(Date.parse(createdAt));
    expect(opened.oldestOpenAgeMs).toBeGreaterThanOrEqual(0);
  });
});

describe("POST /v1/admin/reports/{id}/actions", () => {
  it("dismiss: recorded (who, when, what, note) and resolved; a second action is 409 and changes nothing", async () => {
    const target = newId();
    const { id } = (await api("POST", "/v1/reports", { ...as(newId()), body: { userId: target, category: "spam" } })).body;
    const done = await ok(api("POST", `/v1/admin/reports/${id}/actions`, { ...admin, body: { action: "dismiss", note: "not spam" } }));
    expect(done.body).toMatchObject({ id, status: "resolved", resolution: "dismiss", resolvedAt: expect.any(String), actions: [{ action: "dismiss", actorId: "1", note: "not spam", at: expect.any(String) }] });
    const again = await api("POST", `/v1/admin/reports/${id}/actions`, { ...admin, body: { action: "suspend" } });
    expect(again.status, show(again)).toBe(409);
    expect((await api("GET", "/v1/me/blocks", as(target))).status).toBe(200);
    expect(await queued(target)).toBeUndefined();
    expect((await queued(target, "resolved"))?.id).toBe(id);
    expect((await api("POST", "/v1/admin/reports/999999999999/actions", { ...admin, body: { action: "dismiss" } })).status).toBe(404);
    const badAction = await api("POST", `/v1/admin/reports/${id}/actions`, { ...admin, body: { action: "ban" } });
    expect(badAction.status).toBe(400);
    expect(badAction.body.error.details[0].field).toBe("action");
  });

  it("remove-posts: the reported posts are deleted through the post delete path, so followers' timelines lose them", async () => {
    const [target, follower] = [newId(), newId()];
    await follow(follower, target);
    const [bad, fine] = [await post({ userId: target }, "bad post"), await post({ userId: target }, "fine post")];
    await eventually(() => feed(follower), (page) => page.items.length === 2);
    const { id } = (await api("POST", "/v1/reports", { ...as(newId()), body: { userId: target, postIds: [bad], category: "hate" } })).body;
    const done = await ok(api("POST", `/v1/admin/reports/${id}/actions`, { ...admin, body: { action: "remove-posts" } }));
    expect(done.body.posts).toEqual([{ postId: bad, text: "bad post", reportedAt: expect.any(String), state: "deleted" }]);
    expect((await api("GET", `/v1/posts/${bad}`)).status).toBe(404);
    expect((await api("GET", `/v1/posts/${fine}`)).status).toBe(200);
    const page = await eventually(() => feed(follower), (p) => p.items.length === 1);
    expect(page.items.map((i) => i.post.id)).toEqual([fine]);
  });

  it("suspend: the reported user is suspended (403 suspended on their next request), the note its reason", async () => {
    const target = newId();
    const { id } = (await api("POST", "/v1/reports", { ...as(newId()), body: { userId: target, category: "violence" } })).body;
    await ok(api("POST", `/v1/admin/reports/${id}/actions`, { ...admin, body: { action: "suspend", note: "threats" } }));
    const refused = await api("GET", "/v1/me/blocks", as(target));
    expect(refused.status, show(refused)).toBe(403);
    expect(refused.body.error.code).toBe("suspended");
    const lifted = await ok(api("DELETE", `/v1/admin/users/${target}/suspension`, admin));
    expect(lifted.body).toMatchObject({ userId: target, suspended: false, changed: true });
  });

  it("approve on a report holding no post is 409 and leaves it open", async () => {
    const target = newId();
    const { id } = (await api("POST", "/v1/reports", { ...as(newId()), body: { userId: target, category: "spam" } })).body;
    expect((await api("POST", `/v1/admin/reports/${id}/actions`, { ...admin, body: { action: "approve" } })).status).toBe(409);
    expect((await queued(target))?.id).toBe(id);
  });
});
