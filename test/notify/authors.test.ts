import { afterEach, describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { queryRows } from "../../src/lib/db";
import { authorAlert, expandAuthorPage, MAX_NOTIFY_AUTHORS } from "../../src/notify/authors";
import { MAX_AUTHOR_THREAD_WINDOWS } from "../../src/notify/keys";
import { api, newId, show } from "../support/api";
import { badgeTotal, notifyFlow, pagesOf, recordingQueue } from "../support/notify-flow";
import { closeLive, openLive } from "../badges/live-helpers";
import { withServices } from "../counters/support";

/**
 * Posts of chosen followed authors: a user chooses which followed authors notify them; an author's
 * post queues one page of its choosers after the response, whose consumer queues each chooser's
 * push as any kind's; the `notify-send` consumer sends it with the icon at the unread total.
 */

afterEach(closeLive);

const follow = (userId: string, authorId: string) => api("PUT", `/v1/me/following/${authorId}`, { as: { userId } });
const unfollow = (userId: string, authorId: string) => api("DELETE", `/v1/me/following/${authorId}`, { as: { userId } });
const choose = (userId: string, authorId: string) => api("PUT", `/v1/me/notification-authors/${authorId}`, { as: { userId } });
const unchoose = (userId: string, authorId: string) => api("DELETE", `/v1/me/notification-authors/${authorId}`, { as: { userId } });
const chosen = async (userId: string) => ((await api("GET", "/v1/me/notification-authors", { as: { userId } })).body.items as { authorId: string }[]).map((i) => i.authorId);
const post = (authorId: string, env: Partial<Env>, body: Record<string, unknown>) => api("POST", "/v1/posts", { as: { userId: authorId }, env, body });

/** `userId` follows and chooses `authorId`, through the API. */
async function followAndChoose(userId: string, authorId: string) {
  expect((await follow(userId, authorId)).status).toBe(200);
  const res = await choose(userId, authorId);
  expect(res.status, show(res)).toBe(200);
  return res;
}

describe("/v1/me/notification-authors", () => {
  it("chooses a followed author, lists it, and unchooses it; both idempotent", async () => {
    const me = newId();
    const author = newId();
    expect((await follow(me, author)).status).toBe(200);
    expect((await choose(me, author)).body).toEqual({ authorId: author, chosen: true, changed: true });
    expect((await choose(me, author)).body).toEqual({ authorId: author, chosen: true, changed: false });
    const list = await api("GET", "/v1/me/notification-authors", { as: { userId: me } });
    expect(list.status, show(list)).toBe(200);
    expect(list.body).toEqual({ items: [{ authorId: author, chosenAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }] });
    expect((await unchoose(me, author)).body).toEqual({ authorId: author, chosen: false, changed: true });
    expect((await unchoose(me, author)).body).toEqual({ authorId: author, chosen: false, changed: false });
    expect(await chosen(me)).toEqual([]);
  });

  it("refuses an author the caller does not follow (themselves included) with a 409 naming authorId, and a bad id with a 400", async () => {
    const me = newId();
    for (const authorId of [newId(), me]) {
      const res = await choose(me, authorId);
      expect(res.status, show(res)).toBe(409);
      expect(res.body.error.details).toEqual([{ field: "authorId", message: "must be a user you follow" }]);
    }
    const bad = await choose(me, "0");
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("authorId");
    expect(await chosen(me)).toEqual([]);
  });

  it(`holds at most ${MAX_NOTIFY_AUTHORS} authors: one more is a 409 and changes nothing; an unfollowed one holds no place`, async () => {
    const me = newId();
    const authors = Array.from({ length: MAX_NOTIFY_AUTHORS }, () => newId());
    // Set up by hand: that many follows and choices through the API would pass the write limit.
    await withServices({}, async (s) => {
      await queryRows(s.db, "INSERT INTO follows (follower_id, followee_id) SELECT $1, unnest($2::bigint[])", [me, authors]);
      await queryRows(s.db, "INSERT INTO notify_author_choices (user_id, author_id) SELECT $1, unnest($2::bigint[])", [me, authors]);
    });
    const extra = newId();
    expect((await follow(me, extra)).status).toBe(200);
    const refused = await choose(me, extra);
    expect(refused.status, show(refused)).toBe(409);
    expect(refused.body.error.details[0].field).toBe("authorId");
    expect((await chosen(me)).length).toBe(MAX_NOTIFY_AUTHORS);
    // An author chosen again is no new place.
    expect((await choose(me, authors[0]!)).body).toMatchObject({ chosen: true, changed: false });
    // A follow gone (its choice left behind, as a failed delete would) frees its place.
    await withServices({}, (s) => queryRows(s.db, "DELETE FROM follows WHERE follower_id = $1 AND followee_id = $2", [me, authors[1]]));
    expect((await chosen(me)).length).toBe(MAX_NOTIFY_AUTHORS - 1);
    expect((await choose(me, extra)).body).toEqual({ authorId: extra, chosen: true, changed: true });
  });

  it("an unfollow removes the choice: following again does not bring it back", async () => {
    const me = newId();
    const author = newId();
    await followAndChoose(me, author);
    expect((await unfollow(me, author)).status).toBe(200);
    expect(await chosen(me)).toEqual([]);
    expect((await follow(me, author)).status).toBe(200);
    expect(await chosen(me)).toEqual([]);
  });
});

describe("POST /v1/posts: pushes to the users who chose the author", () => {
  it("a chosen author's post: one page queued, then the chooser's push, sent with the alert and the icon at the unread total", async () => {
    const s = await notifyFlow();
    const author = newId();
    await followAndChoose(s.me, author);
    // Unread for the icon: two direct messages (their own pushes go elsewhere).
    await api("POST", `/v1/dms/${s.me}`, { as: { userId: "1", role: "service" }, env: { ...s.env, NOTIFY_QUEUE: recordingQueue().queue }, body: { from: newId(), count: 2 } });
    const created = await post(author, s.env, { text: "Live at 8 tonight", alert: { title: "Ada posted", url: "/posts/live" } });
    expect(created.status, show(created)).toBe(201);
    const alert = { title: "Ada posted", body: "Live at 8 tonight", url: "/posts/live", thread: `author:${author}` };
    expect(s.queued.map((q) => q.body)).toEqual([{ kind: "author-page", postId: created.body.id, authorId: author, alert, after: null }]);
    // The page: the chooser's push, through the author's batch window.
    await s.deliver();
    expect(s.queued).toEqual([{ body: { userId: s.me, kind: "author", alert, urgency: "normal", window: `author:${author}` }, delaySeconds: 30 }]);
    await s.deliver();
    expect(s.push.received.map((r) => r.url)).toEqual([s.endpoint]);
    const total = await badgeTotal(s.me);
    expect(total).toBe(2);
    expect(await s.decrypted(0)).toMatchObject({ title: "Ada posted", body: "Live at 8 tonight", url: "/posts/live", tag: `author:${author}`, badge: total });
    expect(s.push.received[0]!.headers.Urgency).toBe("normal");
  });

  it("without an alert: \"New post\" and the start of the text; three posts in a row are one push", async () => {
    const s = await notifyFlow();
    const author = newId();
    await followAndChoose(s.me, author);
    const text = `${"a".repeat(150)} end`;
    for (let i = 0; i < 3; i++) expect((await post(author, s.env, { text })).status).toBe(201);
    expect(pagesOf(s.queued, "author-page").map((p) => p.alert)).toEqual(Array(3).fill({ title: "New post", body: `${"a".repeat(139)}…`, thread: `author:${author}` }));
    await s.deliver();
    expect(s.queued).toHaveLength(1);
    await s.deliver();
    expect(s.push.received).toHaveLength(1);
    expect(await s.decrypted(0)).toMatchObject({ title: "New post", body: `${"a".repeat(139)}… … and 2 others`, tag: `author:${author}` });
  });

  it(`a new thread per post does not mean a push per post: past ${MAX_AUTHOR_THREAD_WINDOWS} open thread windows, posts collapse into the author's window`, async () => {
    const s = await notifyFlow();
    const author = newId();
    await followAndChoose(s.me, author);
    const posted = (text: string, thread: string) => post(author, s.env, { text, alert: { title: "Ada", thread } });
    const posts = 10;
    // Each post's page delivered before the next post (a batch's pages run side by side, in no set
    // order), so the windows open in the posts' order; the window pushes stay queued meanwhile.
    const page = (body: { kind: string }) => body.kind === "author-page";
    const postAndPage = async (text: string, thread: string) => {
      expect((await posted(text, thread)).status).toBe(201);
      await s.deliver(page);
    };
    for (let i = 0; i < posts; i++) await postAndPage(`post ${i}`, `t${i}`);
    // A thread whose window is open counts there; one past the cap again in the author's window.
    for (const thread of ["t0", "t7"]) await postAndPage(`again ${thread}`, thread);
    const threads = Array.from({ length: MAX_AUTHOR_THREAD_WINDOWS }, (_, i) => `author:${author}:t${i}`);
    expect(s.queued.map((q) => [q.body.window, q.body.alert?.thread, q.delaySeconds])).toEqual([...threads, `author:${author}`].map((t) => [t, t, 30]));
    await s.deliver(); // the windows' pushes
    expect(s.push.received).toHaveLength(MAX_AUTHOR_THREAD_WINDOWS + 1);
    const shown = await Promise.all(s.push.received.map((_, i) => s.decrypted(i)));
    const byTag = new Map(shown.map((p) => [p.tag, p.body]));
    expect(byTag.get(threads[0])).toBe("post 0 … and 1 other");
    expect(byTag.get(threads[1])).toBe("post 1");
    // Posts t3…t9 and the second t7: the first of them, and the count of the rest.
    expect(byTag.get(`author:${author}`)).toBe(`post ${MAX_AUTHOR_THREAD_WINDOWS} … and ${posts - MAX_AUTHOR_THREAD_WINDOWS} others`);
    // The windows closed with their pushes: a new thread has a window of its own again.
    expect((await posted("later", "t99")).status).toBe(201);
    await s.deliver();
    expect(s.queued.map((q) => q.body.window)).toEqual([`author:${author}:t99`]);
  });

  it("a user who follows the author without choosing gets nothing; an author nobody chose queues nothing at all", async () => {
    const s = await notifyFlow();
    const author = newId();
    const chooser = newId();
    expect((await follow(s.me, author)).status).toBe(200);
    await followAndChoose(chooser, author);
    await post(author, s.env, { text: "hello" });
    await s.deliver();
    // Only the chooser is a candidate; with no device they get nothing queued either.
    expect(s.queued).toEqual([]);
    const nobodyChose = newId();
    expect((await follow(s.me, nobodyChose)).status).toBe(200);
    expect((await post(nobodyChose, s.env, { text: "anyone?" })).status).toBe(201);
    expect(s.queued).toEqual([]);
  });

  it("an unfollowed author's posts push nothing, nor do those of an author unchosen", async () => {
    const s = await notifyFlow();
    const [gone, unchosen] = [newId(), newId()];
    await followAndChoose(s.me, gone);
    await followAndChoose(s.me, unchosen);
    expect((await unfollow(s.me, gone)).status).toBe(200);
    expect((await unchoose(s.me, unchosen)).status).toBe(200);
    for (const author of [gone, unchosen]) expect((await post(author, s.env, { text: "hi" })).status).toBe(201);
    expect(s.queued).toEqual([]);
  });

  it("a choice whose follow is gone (its delete lost) pushes nothing", async () => {
    const s = await notifyFlow();
    const author = newId();
    await followAndChoose(s.me, author);
    await withServices({}, (services) => queryRows(services.db, "DELETE FROM follows WHERE follower_id = $1 AND followee_id = $2", [s.me, author]));
    expect((await post(author, s.env, { text: "hi" })).status).toBe(201);
    expect(pagesOf(s.queued, "author-page")).toHaveLength(1);
    await s.deliver();
    expect(s.queued).toEqual([]);
  });

  it("the author kind turned off queues nothing; an open badges socket gets no push", async () => {
    const s = await notifyFlow();
    const author = newId();
    await followAndChoose(s.me, author);
    expect((await api("PUT", "/v1/me/notification-preferences", { as: { userId: s.me }, env: s.env, body: { kinds: { author: false } } })).status).toBe(200);
    await post(author, s.env, { text: "one" });
    await s.deliver();
    expect(s.queued).toEqual([]);
    expect((await api("PUT", "/v1/me/notification-preferences", { as: { userId: s.me }, env: s.env, body: {} })).status).toBe(200);
    await openLive(s.me);
    await post(author, s.env, { text: "two" });
    await s.deliver();
    expect(s.queued).toEqual([]);
  });

  it("a post deleted before its page runs pushes nothing", async () => {
    const s = await notifyFlow();
    const author = newId();
    await followAndChoose(s.me, author);
    const created = await post(author, s.env, { text: "oops" });
    expect((await api("DELETE", `/v1/posts/${created.body.id}`, { as: { userId: author } })).status).toBe(200);
    await s.deliver();
    expect(s.queued).toEqual([]);
  });

  it("refuses an alert whose url is not a path of the app, or a bad field, with a 400 naming it, creating nothing", async () => {
    const author = newId();
    for (const [alert, field] of [[{ url: "https://elsewhere.example/login" }, "alert.url"], [{ url: "//elsewhere.example" }, "alert.url"], [{ title: "x".repeat(101) }, "alert.title"], [{ sound: "loud" }, "alert"]] as const) {
      const res = await post(author, {}, { text: "hi", alert });
      expect(res.status, show(res)).toBe(400);
      expect(JSON.stringify(res.body.error.details)).toContain(field);
    }
    expect((await api("GET", `/v1/users/${author}/posts`)).body.items).toEqual([]);
  });

  it("refuses a url that a browser resolves to another site (a backslash, a tab, encoded or not) with a 400 naming alert.url", async () => {
    const author = newId();
    // Each starts like a path, or nearly; `new URL(url, origin)` takes the raw backslashed and tabbed ones to evil.example,
    // and an app router that decodes the path before navigating would take the encoded ones there.
    for (const url of ["/\\evil.example/login", "/\\\\evil.example", "/%5Cevil.example", "/%5cevil.example", "\t//evil.example", "/\t/evil.example", "/\n/evil.example", "/%09/evil.example", "javascript:alert(1)", "/%E0%A4%A"]) {
      const res = await post(author, {}, { text: "hi", alert: { url } });
      expect(res.status, `${JSON.stringify(url)}: ${show(res)}`).toBe(400);
      expect(res.body.error.details, url).toEqual([expect.objectContaining({ field: "alert.url" })]);
    }
    expect((await api("GET", `/v1/users/${author}/posts`)).body.items).toEqual([]);
    for (const url of ["/posts/9", "/dms/7?from=push#last", "/ok%2Fencoded", "/search?q=a%20b", "/"]) {
      const res = await post(author, {}, { text: "hi", alert: { url } });
      expect(res.status, `${url}: ${show(res)}`).toBe(201);
    }
  });
});

describe("author pages", () => {
  it("cover every chooser once, in pages of at most the page size, each queuing the next", async () => {
    const author = newId();
    const choosers = Array.from({ length: 5 }, () => newId());
    for (const u of choosers) await followAndChoose(u, author);
    const postId = (await post(author, { NOTIFY_QUEUE: recordingQueue().queue }, { text: "paged" })).body.id as string;
    const q = recordingQueue();
    const env: Partial<Env> = { NOTIFY_QUEUE: q.queue };
    const covered: number[] = [];
    let page = { kind: "author-page" as const, postId, authorId: author, alert: authorAlert(author, "paged", undefined), after: null as string | null };
    for (let i = 0; i < 10; i++) {
      const result = await withServices(env, (services) => expandAuthorPage(services, page, 2));
      covered.push(result.users);
      const next = pagesOf(q.queued.splice(0), "author-page");
      if (result.next === null) {
        expect(next).toEqual([]);
        break;
      }
      expect(next).toEqual([{ ...page, after: result.next }]);
      page = next[0]!;
    }
    expect(covered).toEqual([2, 2, 1]);
    // Keyset by user id: the pages' last ids walk the choosers in order.
    const sorted = [...choosers].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    expect(page.after).toBe(sorted[3]);
  });
});
