/**
 * A room belongs to its owner: the host of its first session, or whom a service or an admin
 * assigns. Only the owner, a service or an admin may start or end its sessions or read its fans'
 * ids; a refused attempt changes nothing, and the owner outlives the room's expiry.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { EXPIRE_AFTER_MS, type LiveRoom } from "../../src/live/room";
import { closeSockets } from "../support/sockets";
import { api, newId, show, type As } from "../support/api";
import { counts, enter, follow, newRoom, openSocket, primary } from "./helpers";

afterEach(closeSockets);

const service = (): As => ({ userId: newId(), role: "service" });
const admin = (): As => ({ userId: newId(), role: "admin" });

async function start(room: string, as: As, body: Record<string, unknown>, status = 201) {
  const res = await api("POST", `/v1/live/${room}/sessions`, { as, body });
  expect(res.status, show(res)).toBe(status);
  return res.body;
}

async function end(room: string, as: As, status = 200) {
  const res = await api("DELETE", `/v1/live/${room}/sessions/current`, { as });
  expect(res.status, show(res)).toBe(status);
  return res.body;
}

const loyal = (room: string, as: As, mode: "all" | "any") => api("GET", `/v1/live/${room}/loyal?sessions=5&mode=${mode}`, { as });
const onlineFans = (room: string, as: As) => api("GET", `/v1/live/${room}/online?list=fans`, { as });
const ids = (body: { items: { userId: string }[] | null }) => body.items?.map((i) => i.userId).sort() ?? null;

/** Drives the room's expiry to its end: its sessions are gone. */
async function expire(room: string) {
  const stub = primary(room);
  await runInDurableObject(stub, (instance: LiveRoom) => {
    instance.clockOffsetMs = EXPIRE_AFTER_MS + 60_000;
  });
  for (let i = 0; i < 50 && (await stub.lastSessions(1)).length > 0; i++) {
    await runDurableObjectAlarm(stub);
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(await stub.lastSessions(1)).toEqual([]);
}

describe("a room's owner", () => {
  it("is the only user who may start or end its sessions or list its fans; a stranger's attempts change nothing", async () => {
    const [room, owner, pastFan, fan, wsFan, viewer, stranger] = [newRoom(), newId(), newId(), newId(), newId(), newId(), newId()];
    for (const f of [pastFan, fan, wsFan]) await follow(f, owner);
    // A past session with a fan the stranger must not learn of, then the live one.
    expect(await start(room, { userId: owner }, { hostId: owner })).toMatchObject({ hostId: owner, ownerId: owner });
    await enter(room, pastFan);
    await end(room, { userId: owner });
    const live = await start(room, { userId: owner }, { hostId: owner });
    await enter(room, fan);
    await enter(room, viewer);
    await openSocket(room, wsFan);

    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const joined = () => api("GET", `/v1/live/${room}/joined?from=${from}&to=${to}`, { as: { userId: stranger } });
    const before = {
      state: await primary(room).state(),
      sessions: await primary(room).lastSessions(10),
      counts: await counts(room),
      joined: (await joined()).body.fans,
      loyalAll: (await loyal(room, { userId: owner }, "all")).body,
      loyalAny: (await loyal(room, { userId: owner }, "any")).body,
    };
    expect(before.counts).toMatchObject({ viewers: 3, onlineFans: 2, sessionId: live.sessionId, live: true });
    expect(ids(before.loyalAny)).toEqual([pastFan, fan, wsFan].sort());

    const as = { userId: stranger };
    for (const body of [{ hostId: stranger }, { hostId: owner }, { hostId: stranger, assignOwner: true }, { hostId: stranger, shards: 4 }]) {
      const res = await api("POST", `/v1/live/${room}/sessions`, { as, body });
      expect(res.status, show(res)).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
    }
    await end(room, as, 403);
    const fansPage = await onlineFans(room, as);
    expect(fansPage.status, show(fansPage)).toBe(403);
    expect(fansPage.body.error.code).toBe("forbidden");
    // Counts stay public; ids are the owner's.
    for (const [mode, mine] of [["all", before.loyalAll], ["any", before.loyalAny]] as const) {
      const res = await loyal(room, as, mode);
      expect(res.status, show(res)).toBe(200);
      expect(res.body).toMatchObject({ count: mine.count, sessionIds: mine.sessionIds, items: null, nextCursor: null });
    }
    expect((await joined()).body.fans).toBe(before.joined);

    // Nothing changed: the same session, the same sessions, every viewer still in, the same counts.
    expect(await primary(room).state()).toEqual(before.state);
    expect(await primary(room).lastSessions(10)).toEqual(before.sessions);
    expect(await counts(room)).toEqual(before.counts);
    for (const user of [fan, viewer, wsFan]) {
      const status = await api("GET", `/v1/live/${room}/online/${user}`, { as });
      expect(status.body, show(status)).toMatchObject({ online: true });
    }
    const ownersPage = await onlineFans(room, { userId: owner });
    expect(ownersPage.status, show(ownersPage)).toBe(200);
    expect(ids(ownersPage.body)).toEqual([fan, wsFan].sort());
    expect(ids((await loyal(room, { userId: owner }, "any")).body)).toEqual(ids(before.loyalAny));
  });

  it("restarting while live ends the live session first, as always", async () => {
    const [room, owner, viewer] = [newRoom(), newId(), newId()];
    const first = await start(room, { userId: owner }, { hostId: owner });
    await enter(room, viewer);
    const second = await start(room, { userId: owner }, { hostId: owner });
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(await counts(room)).toMatchObject({ viewers: 0, sessionId: second.sessionId, live: true });
  });

  it("restarts their room after its session ended, and after it expired; a stranger cannot claim the expired room", async () => {
    const [room, owner, stranger, fan] = [newRoom(), newId(), newId(), newId()];
    await follow(fan, owner);
    await start(room, { userId: owner }, { hostId: owner });
    await end(room, { userId: owner });
    await start(room, { userId: owner }, { hostId: owner });
    await enter(room, fan);
    await end(room, { userId: owner });
    await expire(room);
    expect(await primary(room).state()).toEqual({ session: null, ownerId: owner });

    await start(room, { userId: stranger }, { hostId: stranger }, 403);
    expect(await primary(room).lastSessions(5)).toEqual([]);
    expect((await onlineFans(room, { userId: stranger })).status).toBe(403);
    const restarted = await start(room, { userId: owner }, { hostId: owner });
    expect(restarted).toMatchObject({ hostId: owner, ownerId: owner, endedAt: null });
    expect(await counts(room)).toMatchObject({ sessionId: restarted.sessionId, live: true });
  });

  it("is the user who claims a room nobody owns, by hosting its first session", async () => {
    const [room, first, second] = [newRoom(), newId(), newId()];
    expect(await primary(room).state()).toEqual({ session: null, ownerId: null });
    // Nobody owns it yet: nobody but services and admins may end or list it.
    expect((await onlineFans(room, { userId: first })).status).toBe(403);
    expect(await start(room, { userId: first }, { hostId: first })).toMatchObject({ ownerId: first });
    await start(room, { userId: second }, { hostId: second }, 403);
  });

  it("goes to exactly one of two users racing for a room nobody owns", async () => {
    const [room, a, b] = [newRoom(), newId(), newId()];
    const tries = await Promise.all([a, b].map((user) => api("POST", `/v1/live/${room}/sessions`, { as: { userId: user }, body: { hostId: user } })));
    expect(tries.map((t) => t.status).sort()).toEqual([201, 403]);
    const winner = tries.find((t) => t.status === 201)!.body;
    expect(winner.ownerId).toBe(winner.hostId);
    expect(await primary(room).state()).toMatchObject({ ownerId: winner.hostId, session: { sessionId: winner.sessionId, endedAt: null } });
    expect(await primary(room).lastSessions(5)).toEqual([winner.sessionId]);
  });

  it("of a room live from before owners were recorded is its host", async () => {
    const [room, host, stranger] = [newRoom(), newId(), newId()];
    const live = await start(room, { userId: host }, { hostId: host });
    // The object as an older one left it: sessions, no owner row (reloaded from storage).
    await runInDurableObject(primary(room), (instance: LiveRoom, state) => {
      state.storage.sql.exec(`DELETE FROM owner`);
      (instance as unknown as { migrated: boolean }).migrated = false;
    });
    expect((await primary(room).state()).ownerId).toBe(host);
    await start(room, { userId: stranger }, { hostId: stranger }, 403);
    await end(room, { userId: stranger }, 403);
    expect(await counts(room)).toMatchObject({ sessionId: live.sessionId, live: true });
    await end(room, { userId: host });
    await expire(room);
    expect(await primary(room).state()).toEqual({ session: null, ownerId: host });
  });
});

describe("services and admins", () => {
  it("a service's start assigns a room nobody owns to its host, who then runs it alone", async () => {
    const [room, host, stranger] = [newRoom(), newId(), newId()];
    expect(await start(room, service(), { hostId: host })).toMatchObject({ hostId: host, ownerId: host });
    await end(room, { userId: stranger }, 403);
    await end(room, { userId: host });
    expect(await start(room, { userId: host }, { hostId: host })).toMatchObject({ ownerId: host });
    await start(room, { userId: stranger }, { hostId: stranger }, 403);
  });

  it("a service starts any room for another host, and changes its owner only with assignOwner", async () => {
    const [room, owner, guest] = [newRoom(), newId(), newId()];
    await start(room, { userId: owner }, { hostId: owner });
    // A guest host: the room stays the owner's, so the guest may neither end it nor list its fans.
    expect(await start(room, service(), { hostId: guest })).toMatchObject({ hostId: guest, ownerId: owner });
    await end(room, { userId: guest }, 403);
    expect((await onlineFans(room, { userId: guest })).status).toBe(403);
    expect((await onlineFans(room, { userId: owner })).status).toBe(200);
    await end(room, { userId: owner });
    // Handed over: the new owner runs it, the former one no longer may.
    expect(await start(room, service(), { hostId: guest, assignOwner: true })).toMatchObject({ hostId: guest, ownerId: guest });
    await start(room, { userId: owner }, { hostId: owner }, 403);
    await end(room, { userId: owner }, 403);
    await end(room, { userId: guest });
  });

  it("an admin ends any room's session, and services and admins read its fans' ids", async () => {
    const [room, owner, fan] = [newRoom(), newId(), newId()];
    await follow(fan, owner);
    await start(room, { userId: owner }, { hostId: owner });
    await enter(room, fan);
    for (const as of [service(), admin()]) {
      const page = await onlineFans(room, as);
      expect(page.status, show(page)).toBe(200);
      expect(ids(page.body)).toEqual([fan]);
      expect(ids((await loyal(room, as, "any")).body)).toEqual([fan]);
    }
    expect(await end(room, admin())).toMatchObject({ hostId: owner, ownerId: owner });
    expect(await counts(room)).toMatchObject({ viewers: 0, live: false });
    expect(await start(room, { userId: owner }, { hostId: owner })).toMatchObject({ ownerId: owner });
  });
});
