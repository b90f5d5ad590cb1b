import { afterEach, describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { api, newId, show } from "../support/api";
import { badgeTotal, notifyFlow } from "../support/notify-flow";
import { closeLive, openLive } from "../badges/live-helpers";

/**
 * A follow counts a `follow` notification for the followee and pushes it to their closed apps as
 * a `follow` notification sent through `POST /v1/users/{id}/notifications` would: after the
 * response, by their preferences, one push per 30 s window on the `notification:follow` thread,
 * the icon at the unread total, nothing while an app is open.
 */

afterEach(closeLive);

const setup = notifyFlow;
const followAs = (followerId: string, followeeId: string, env: Partial<Env>) =>
  api("PUT", `/v1/me/following/${followeeId}`, { as: { userId: followerId }, env });

describe("a follow pushes to the followee", () => {
  it("once, \"New follower\" on the follows thread, with the icon at the unread total; a repeated follow pushes nothing", async () => {
    const s = await setup();
    const fan = newId();
    const res = await followAs(fan, s.me, s.env);
    expect(res.status, show(res)).toBe(200);
    expect(s.queued).toEqual([
      { body: { userId: s.me, kind: "notification", type: "follow", alert: { title: "New follower", body: "", thread: "notification:follow" }, urgency: "normal", window: "notification:follow" }, delaySeconds: 30 },
    ]);
    // Idempotent: the same follow again changes nothing, counts nothing and pushes nothing.
    expect((await followAs(fan, s.me, s.env)).body).toMatchObject({ changed: false });
    expect(s.queued).toHaveLength(1);
    await s.deliver();
    expect(s.push.received).toHaveLength(1);
    const total = await badgeTotal(s.me);
    expect(total).toBe(1);
    expect(await s.decrypted(0)).toMatchObject({ title: "New follower", tag: "notification:follow", badge: total, data: { kind: "notification", type: "follow" } });
    // The follower hears nothing of their own follow.
    expect(s.push.received.every((r) => r.url === s.endpoint)).toBe(true);
  });

  it("5 follows within the window are one push saying how many others", async () => {
    const s = await setup();
    for (let i = 0; i < 5; i++) expect((await followAs(newId(), s.me, s.env)).status).toBe(200);
    expect(s.queued).toHaveLength(1);
    await s.deliver();
    expect(s.push.received).toHaveLength(1);
    expect(await s.decrypted(0)).toMatchObject({ title: "New follower", body: "… and 4 others", tag: "notification:follow", badge: 5 });
    // The window closed with that push: the next follow opens a new one.
    await followAs(newId(), s.me, s.env);
    expect(s.queued).toHaveLength(1);
  });

  it("nothing when the type `follow` is switched off, or while the followee's app is open; the follow still counts", async () => {
    const s = await setup();
    expect((await api("PUT", "/v1/me/notification-preferences", { as: { userId: s.me }, env: s.env, body: { types: { follow: false } } })).status).toBe(200);
    expect((await followAs(newId(), s.me, s.env)).status).toBe(200);
    expect(s.queued).toEqual([]);
    const open = await setup();
    await openLive(open.me);
    expect((await followAs(newId(), open.me, open.env)).status).toBe(200);
    expect(open.queued).toEqual([]);
    expect((await api("GET", "/v1/me/notifications", { as: { userId: s.me } })).body.byType).toEqual({ follow: 1 });
  });
});
