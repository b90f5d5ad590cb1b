import { describe, expect, it } from "vitest";
import { matchedTerm } from "../../src/safety/filter";
import { eventually, feed, follow, post } from "../feed/support";
import { api, newId, show } from "../support/api";
import { ok } from "./support";

const as = (userId: string) => ({ as: { userId } });
const admin = { as: { userId: "1", role: "admin" as const } };

describe("the term matcher", () => {
  it("matches case-insensitively after NFKC, inside text without spaces, and names the term as written", () => {
    const copy = { terms: ["Spam", "ＢＡＤ", "悪い言葉", "ｶﾀｶﾅ", "垃圾"], termsVersion: "m1" };
    expect(matchedTerm(copy, "this is SPAM!")).toBe("Spam");
    expect(matchedTerm(copy, "bad day")).toBe("ＢＡＤ");
    expect(matchedTerm(copy, "ｂａｄ")).toBe("ＢＡＤ");
    expect(matchedTerm(copy, "これは悪い言葉です")).toBe("悪い言葉");
    expect(matchedTerm(copy, "カタカナ")).toBe("ｶﾀｶﾅ");
    expect(matchedTerm(copy, "这是垃圾信息")).toBe("垃圾");
    expect(matchedTerm(copy, "nothing here 👍🏽")).toBeNull();
    expect(matchedTerm({ terms: [], termsVersion: "m2" }, "spam")).toBeNull();
  });
});

describe("PUT /v1/admin/moderation/terms", () => {
  it("replaces the list (deduplicated) and GET reads it, version growing; 400 naming terms past 1,000; 403 for a user", async () => {
    const before = (await ok(api("GET", "/v1/admin/moderation/terms", admin))).body;
    const put = await ok(api("PUT", "/v1/admin/moderation/terms", { ...admin, body: { terms: ["alpha-term", "beta-term", "alpha-term"] } }));
    expect(put.body).toEqual({ terms: ["alpha-term", "beta-term"], version: before.version + 1, updatedAt: expect.any(String) });
    expect((await ok(api("GET", "/v1/admin/moderation/terms", admin))).body).toEqual(put.body);
    const tooMany = await api("PUT", "/v1/admin/moderation/terms", { ...admin, body: { terms: Array.from({ length: 1001 }, (_, i) => `t${i}`) } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details[0].field).toBe("terms");
    expect((await api("PUT", "/v1/admin/moderation/terms", { ...as(newId()), body: { terms: [] } })).status).toBe(403);
    expect((await ok(api("GET", "/v1/admin/moderation/terms", admin))).body).toEqual(put.body);
  });
});

describe("a post matching a term", () => {
  it("is held: stored, shown to its author only, not fanned out, listed as an automatic report; approve publishes it, remove-posts removes it", async () => {
    const tag = newId();
    const [author, follower] = [newId(), newId()];
    await ok(api("PUT", "/v1/admin/moderation/terms", { ...admin, body: { terms: [`forbidden${tag}`, `禁止${tag}`] } }));
    await follow(follower, author);

    const held = await api("POST", "/v1/posts", { ...as(author), body: { text: `so ＦＯＲＢＩＤＤＥＮ${tag} today` } });
    expect(held.status, show(held)).toBe(201);
    expect(held.body).toMatchObject({ authorId: author, held: true });
    const heldCjk = await api("POST", "/v1/posts", { ...as(author), body: { text: `今日は禁止${tag}です` } });
    expect(heldCjk.body.held).toBe(true);
    const fine = await api("POST", "/v1/posts", { ...as(author), body: { text: "all good" } });
    expect(fine.body.held).toBeUndefined();

    // Shown to its author only: their own profile with their token; 404 and absent for everyone else.
    expect((await api("GET", `/v1/posts/${held.body.id}`)).status).toBe(404);
    expect((await ok(api("GET", `/v1/users/${author}/posts`))).body.items.map((p: { id: string }) => p.id)).toEqual([fine.body.id]);
    expect((await ok(api("GET", `/v1/users/${author}/posts`, as(author)))).body.items.map((p: { id: string }) => p.id)).toEqual([fine.body.id, heldCjk.body.id, held.body.id]);
    expect((await ok(api("GET", `/v1/users/${author}/posts`, as(follower)))).body.items).toHaveLength(1);
    // The follower's timeline gets the fine post only (a cold build from Postgres leaves held posts out too).
    const page = await eventually(() => feed(follower), (p) => p.items.length >= 1);
    expect(page.items.map((i) => i.post.id)).toEqual([fine.body.id]);

    // One automatic report for the author: no reporter, category other, the comment naming the terms.
    const reports = await ok(api("GET", "/v1/admin/reports?limit=100", admin));
    let report = reports.body.items.find((r: { userId: string }) => r.userId === author);
    for (let cursor = reports.body.nextCursor; !report && cursor; ) {
      const next = await ok(api("GET", `/v1/admin/reports?limit=100&cursor=${cursor}`, admin));
      report = next.body.items.find((r: { userId: string }) => r.userId === author);
      cursor = next.body.nextCursor;
    }
    expect(report).toMatchObject({ reporterId: null, category: "other", status: "open" });
    expect(report.comment).toContain(`forbidden${tag}`);
    expect(report.comment).toContain(`禁止${tag}`);
    expect(report.posts.map((p: { postId: string; state: string }) => [p.postId, p.state])).toEqual([[held.body.id, "held"], [heldCjk.body.id, "held"]].sort());

    // approve: published as if just posted — readable, and fanned out to the follower.
    const approved = await ok(api("POST", `/v1/admin/reports/${report.id}/actions`, { ...admin, body: { action: "approve", note: "quoting the rules" } }));
    expect(approved.body.posts.map((p: { state: string }) => p.state)).toEqual(["live", "live"]);
    expect((await api("GET", `/v1/posts/${held.body.id}`)).status).toBe(200);
    const after = await eventually(() => feed(follower), (p) => p.items.length === 3);
    expect(after.items.map((i) => i.post.id).sort()).toEqual([fine.body.id, held.body.id, heldCjk.body.id].sort());

    // remove-posts on the next held post: removed, never shown.
    const again = await api("POST", "/v1/posts", { ...as(author), body: { text: `forbidden${tag}` } });
    expect(again.body.held).toBe(true);
    const next = (await ok(api("GET", "/v1/admin/reports?limit=100", admin))).body.items.find((r: { userId: string; status: string }) => r.userId === author);
    const queue = next ?? (await ok(api("GET", "/v1/admin/reports?status=open&limit=100", admin))).body.items.find((r: { userId: string }) => r.userId === author);
    expect(queue.posts.map((p: { postId: string }) => p.postId)).toEqual([again.body.id]);
    await ok(api("POST", `/v1/admin/reports/${queue.id}/actions`, { ...admin, body: { action: "remove-posts" } }));
    expect((await ok(api("GET", `/v1/users/${author}/posts`, as(author)))).body.items.map((p: { id: string }) => p.id)).not.toContain(again.body.id);

    await ok(api("PUT", "/v1/admin/moderation/terms", { ...admin, body: { terms: [] } }));
    expect((await api("POST", "/v1/posts", { ...as(author), body: { text: `forbidden${tag}` } })).body.held).toBeUndefined();
  });
});
