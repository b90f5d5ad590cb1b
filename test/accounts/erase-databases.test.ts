/**
 * An account deletion at N = 3 leaves nothing behind: a user with posts (liked and favourited by
 * others, in followers' timelines), likes and favourites given (one flushed to Postgres, one still
 * a pending delta), follows both ways, a device, preferences, chosen authors both ways,
 * notifications, DMs both ways, a stream membership, a live session they host, blocks and mutes
 * both ways, reports made and reports about them (one open, one acted on) and a report they
 * dismissed as an operator is deleted; then every key of every Redis
 * database (name, members, fields, values) and every Postgres column is searched for their id and
 * their post ids (src/accounts/scan.ts). Nothing may remain but the `account_deletions` row, the
 * moderation records about them (KEPT_RECORDS), and what docs/privacy.md lists as known leftovers (KNOWN_LEFTOVERS, each with what ends it), and the
 * other users' counters, timelines and follower lists are what they would be without the user.
 */
import { expect, it } from "vitest";
import { classify, restRedis, scanPostgres, scanRedis } from "../../src/accounts/scan";
import { flushAll } from "../../src/counters/flush";
import { queryRows } from "../../src/lib/db";
import { withServices } from "../counters/support";
import { api, newId, show } from "../support/api";
import { counts, ok } from "./support";
import { describeAtN3, stackDatabases } from "../support/databases";
import { eventually } from "../support/eventually";
import { pushTestKeys, newSubscriptionKeys } from "../support/push";

const service = { userId: "9000", role: "service" as const };
const admin = { userId: "1", role: "admin" as const };


describeAtN3("an account deletion at N = 3", () => {
  it("removes the user everywhere: only the deletion's row and the documented leftovers remain, and others' counts are exact", async () => {
    const [victim, fan, star, peer] = [newId(), newId(), newId(), newId()];
    const as = (userId: string) => ({ as: { userId } });
    const pushEnv = (await pushTestKeys()).env;
    // Post ids of 13 digits at least: the scan matches ids as whole numbers, and a fresh stack's
    // first posts (1, 2, 3) would be found in every counter, index and flag of the stack.
    await withServices({}, (services) =>
      queryRows(services.db, "SELECT setval(pg_get_serial_sequence('posts', 'id'), GREATEST((SELECT max(id) FROM posts), 1000000000000))", []),
    );

    // The victim's posts, liked and favourited by a fan who follows them and reads their timeline.
    const posts: string[] = [];
    for (const text of ["one", "two", "three", "four"]) posts.push((await ok(api("POST", "/v1/posts", { ...as(victim), body: { text } }), 201)).id);
    await ok(api("PUT", `/v1/me/following/${victim}`, as(fan)));
    await ok(api("PUT", `/v1/posts/${posts[0]}/likes/me`, as(fan)));
    await ok(api("PUT", `/v1/posts/${posts[1]}/favorites/me`, as(fan)));
    await ok(api("PUT", `/v1/me/notification-authors/${victim}`, as(fan)));
    // What the victim gives: a follow, a like flushed to Postgres and one still pending, a favourite.
    const starPosts = [(await ok(api("POST", "/v1/posts", { ...as(star), body: { text: "star one" } }), 201)).id, (await ok(api("POST", "/v1/posts", { ...as(star), body: { text: "star two" } }), 201)).id];
    await ok(api("PUT", `/v1/me/following/${star}`, as(victim)));
    await ok(api("PUT", `/v1/me/notification-authors/${star}`, as(victim)));
    await ok(api("PUT", `/v1/posts/${starPosts[0]}/likes/me`, as(victim)));
    await withServices({}, (services) => flushAll(services));
    await ok(api("PUT", `/v1/posts/${starPosts[1]}/likes/me`, as(victim)));
    await ok(api("PUT", `/v1/posts/${starPosts[1]}/favorites/me`, as(victim)));
    await ok(api("PUT", `/v1/posts/${starPosts[0]}/likes/me`, as(peer)));
    // Timelines of both sides, built.
    expect((await ok(api("GET", "/v1/me/feed", as(fan)))).items.map((p: { post: { id: string } }) => p.post.id)).toEqual(expect.arrayContaining(posts));
    await ok(api("GET", "/v1/me/feed", as(victim)));
    // A device, preferences, notifications, DMs both ways, a stream membership, badges read.
    const keys = await newSubscriptionKeys();
    await ok(api("PUT", "/v1/me/devices/browser", { ...as(victim), env: pushEnv, body: { kind: "webpush", endpoint: `https://fcm.googleapis.com/fcm/send/${crypto.randomUUID()}`, keys: { p256dh: keys.p256dh, auth: keys.auth } } }));
    await ok(api("PUT", "/v1/me/notification-preferences", { ...as(victim), body: { kinds: { broadcast: false } } }));
    await ok(api("POST", `/v1/users/${victim}/notifications`, { as: service, body: { type: "reply", count: 2 } }));
    await ok(api("POST", `/v1/dms/${victim}`, { as: service, body: { from: peer, count: 1 } }));
    await ok(api("POST", `/v1/dms/${peer}`, { as: service, body: { from: victim, count: 1 } }));
    await ok(api("PUT", `/v1/streams/chat/${newId()}/members/${victim}`, { as: service }));
    await ok(api("GET", "/v1/me/badges", as(victim)));
    // Blocks and mutes both ways: the victim blocks and mutes a stranger; a blocker and a muter pick the victim.
    const [stranger, blocker, muter] = [newId(), newId(), newId()];
    await ok(api("PUT", `/v1/me/blocks/${stranger}`, as(victim)));
    await ok(api("PUT", `/v1/me/mutes/${stranger}`, { ...as(victim), body: { notifications: true } }));
    await ok(api("PUT", `/v1/me/blocks/${victim}`, as(blocker)));
    await ok(api("PUT", `/v1/me/mutes/${victim}`, { ...as(muter), body: { notifications: true, durationSeconds: 3600 } }));
    // A live session the victim hosts.
    const room = `erase-${newId()}`;
    await ok(api("POST", `/v1/live/${room}/sessions`, { ...as(victim), body: { hostId: victim } }), 201);

    // Reports: the victim reports the stranger; the peer reports the victim (left open); the muter
    // reports another post of theirs, removed by an operator; the victim, as an operator, dismisses a report.
    const made = await ok(api("POST", "/v1/reports", { ...as(victim), body: { userId: stranger, postIds: [], category: "spam", comment: "spam" } }), 201);
    const openAbout = await ok(api("POST", "/v1/reports", { ...as(peer), body: { userId: victim, postIds: [posts[2]], category: "harassment", comment: "rude" } }), 201);
    const removedAbout = await ok(api("POST", "/v1/reports", { ...as(muter), body: { userId: victim, postIds: [posts[3]], category: "hate", comment: "" } }), 201);
    await ok(api("POST", `/v1/admin/reports/${removedAbout.id}/actions`, { as: admin, body: { action: "remove-posts", note: "hate" } }));
    const judged = await ok(api("POST", "/v1/reports", { ...as(peer), body: { userId: stranger, postIds: [], category: "other", comment: "" } }), 201);
    await ok(api("POST", `/v1/admin/reports/${judged.id}/actions`, { as: { userId: victim, role: "admin" as const }, body: { action: "dismiss", note: "" } }));

    const before = { starPosts: await counts("post", starPosts) };

    const started = await ok(api("DELETE", `/v1/users/${victim}`, { as: service }), 202);
    const refused = await eventually(() => api("GET", "/v1/me/badges", as(victim)), (r) => r.status === 409, 6_000);
    expect(refused.body.error?.code, show(refused)).toBe("account_deleting");
    const done = await eventually(() => ok(api("GET", `/v1/admin/deletions/${started.deletionId}`, { as: admin })), (d) => d.status === "finished", 55_000);
    expect(done.status).toBe("finished");
    // The fan-outs the post deletes queued: done once the fan's timeline has none of the posts.
    const fanFeed = await eventually(() => ok(api("GET", "/v1/me/feed", as(fan))), (f) => !f.items.some((p: { post: { id: string } }) => posts.includes(p.post.id)), 20_000);
    expect(fanFeed.items.map((p: { post: { id: string } }) => p.post.id)).not.toEqual(expect.arrayContaining([posts[0]]));
    await withServices({}, (services) => flushAll(services));

    // Other users' counts are what they would be without the victim.
    const after = await counts("post", starPosts);
    expect(after[starPosts[0]!]!.likes).toBe(before.starPosts[starPosts[0]!]!.likes! - 1);
    expect(after[starPosts[1]!]!.likes).toBe(before.starPosts[starPosts[1]!]!.likes! - 1);
    expect(after[starPosts[1]!]!.favorites).toBe(before.starPosts[starPosts[1]!]!.favorites! - 1);
    expect(after[starPosts[0]!]!.likes).toBe(1); // the peer's
    // Their own lists no longer name the victim (the rows and their cached sets went).
    expect((await ok(api("GET", "/v1/me/blocks", as(blocker)))).items).toEqual([]);
    expect((await ok(api("GET", "/v1/me/mutes", as(muter)))).items).toEqual([]);
    const users = await counts("user", [fan, star]);
    expect(users[fan]!.following).toBe(0);
    expect(users[star]!.followers).toBe(0);
    expect((await ok(api("GET", `/v1/users/${star}/followers`))).items).toEqual([]);
    expect((await ok(api("GET", `/v1/users/${fan}/following`))).items).toEqual([]);
    expect((await ok(api("GET", "/v1/me/notification-authors", as(fan)))).items ?? []).toEqual([]);
    expect((await ok(api("GET", `/v1/live/${room}/online`, as(fan)))).live).toBe(false);

    // Reports: the one the victim made stays open without them; those about them are kept, the open
    // one resolved by the deletion with its text blanked, the removed one's text kept as evidence.
    const reports = async (status: string) => (await ok(api("GET", `/v1/admin/reports?status=${status}&limit=100`, { as: admin }))).items as any[];
    const open = await reports("open");
    const resolved = await reports("resolved");
    expect(open.find((r) => r.id === made.id)).toMatchObject({ reporterId: null, reporterErased: true, userId: stranger, comment: "spam" });
    expect(resolved.find((r) => r.id === openAbout.id)).toMatchObject({ userId: victim, resolution: "account-deleted", posts: [{ postId: posts[2], text: "", state: "deleted" }] });
    expect(resolved.find((r) => r.id === removedAbout.id)).toMatchObject({ userId: victim, resolution: "remove-posts", posts: [{ postId: posts[3], text: "four" }] });
    expect(resolved.find((r) => r.id === judged.id).actions).toEqual([{ action: "dismiss", actorId: null, note: "", at: expect.any(String) }]);
    // A new report by someone else of the same user is a report of its own.
    expect((await ok(api("POST", "/v1/reports", { ...as(fan), body: { userId: stranger, postIds: [], category: "spam", comment: "" } }), 201)).id).not.toBe(made.id);

    // Nothing names the victim or their posts but the deletion's row and the documented leftovers.
    const found = [];
    for (const [index, db] of stackDatabases().slice(0, 3).entries()) found.push(...(await scanRedis(restRedis(db.url, db.token), index, victim, posts)));
    found.push(...(await withServices({}, (services) => scanPostgres((text, params) => queryRows(services.db, text, params), victim, posts))));
    const { kept: records, unexpected } = classify(found);
    expect(unexpected).toEqual([]);
    // Kept: the reports about the victim (their id, the two posts), never the victim as reporter or operator.
    expect(new Set(records.map((f) => f.place))).toEqual(new Set(["postgres safety_reports.target_id", "postgres safety_report_posts.post_id"]));
    const kept = await withServices({}, (services) => queryRows<{ n: number }>(services.db, "SELECT count(*)::int AS n FROM account_deletions WHERE user_id = $1", [victim]));
    expect(kept[0]!.n).toBe(1);
  });
});
