import { runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { EXPIRE_AFTER_MS, EXPIRE_CHUNK_ROWS, type LiveRoom } from "../../src/live/room";
import { roomStub, shardOf } from "../../src/live/rooms";
import { closeSockets } from "../support/sockets";
import { api, newId, show, tokenFor, type ApiResponse } from "../support/api";
import { counts, enter, follow, liveEnv, newRoom, openSocket, primary, startSession } from "./helpers";

afterEach(closeSockets);

async function endSession(roomId: string, as: string) {
  const res = await api("DELETE", `/v1/live/${roomId}/sessions/current`, { as: { userId: as } });
  expect(res.status, show(res)).toBe(200);
  return res.body;
}

describe("POST /v1/live/{roomId}/sessions", () => {
  it("lets the host or a service start a session, and nobody else", async () => {
    const [room, host, other] = [newRoom(), newId(), newId()];
    const stranger = await api("POST", `/v1/live/${room}/sessions`, { as: { userId: other }, body: { hostId: host } });
    expect(stranger.status, show(stranger)).toBe(403);
    const service = await api("POST", `/v1/live/${room}/sessions`, { as: { userId: other, role: "service" }, body: { hostId: host } });
    expect(service.status, show(service)).toBe(201);
    expect(service.body).toMatchObject({ roomId: room, hostId: host, shards: 1, endedAt: null });
  });

  it("rejects a bad hostId or shard count with a 400 naming the field", async () => {
    const [room, host] = [newRoom(), newId()];
    const res = await api("POST", `/v1/live/${room}/sessions`, { as: { userId: host }, body: { hostId: host, shards: 0 } });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.details[0].field).toBe("shards");
    const bad = await api("POST", `/v1/live/${room}/sessions`, { as: { userId: host }, body: { hostId: "abc" } });
    expect(bad.body.error.details[0].field, show(bad)).toBe("hostId");
  });
});

describe("DELETE /v1/live/{roomId}/sessions/current", () => {
  it("ends the session: everyone leaves, sockets close, and joining answers 409", async () => {
    const [room, host, a, b] = [newRoom(), newId(), newId(), newId()];
    await follow(a, host);
    await startSession(room, host);
    await enter(room, a);
    const { ws } = await openSocket(room, b);
    const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
    expect(await counts(room)).toMatchObject({ viewers: 2, onlineFans: 1 });
    await endSession(room, host);
    expect(await counts(room)).toMatchObject({ viewers: 0, onlineFans: 0, live: false });
    expect(await closed).toBe(1000);
    const late = await api("POST", `/v1/live/${room}/presence`, { as: { userId: a } });
    expect(late.status, show(late)).toBe(409);
  });

  it("refuses a viewer who does not own the room with 403", async () => {
    const [room, host, other] = [newRoom(), newId(), newId()];
    await startSession(room, host);
    const res = await api("DELETE", `/v1/live/${room}/sessions/current`, { as: { userId: other } });
    expect(res.status, show(res)).toBe(403);
  });
});

describe("GET /v1/live/{roomId}/online?list=fans", () => {
  it("pages through the online fans for the host", async () => {
    const [room, host] = [newRoom(), newId()];
    const fans = Array.from({ length: 5 }, () => newId());
    for (const fan of fans) await follow(fan, host);
    await startSession(room, host);
    for (const fan of fans) await enter(room, fan);
    await enter(room, newId()); // not a fan
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: ApiResponse = await api("GET", `/v1/live/${room}/online?list=fans&limit=2${cursor ? `&cursor=${cursor}` : ""}`, { as: { userId: host } });
      expect(res.status, show(res)).toBe(200);
      seen.push(...res.body.items.map((i: { userId: string }) => i.userId));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual([...fans].sort());
  });

  it("answers 403 to anyone but the room's owner, services and admins", async () => {
    const [room, host] = [newRoom(), newId()];
    await startSession(room, host);
    const other = await api("GET", `/v1/live/${room}/online?list=fans`, { as: { userId: newId() } });
    expect(other.status, show(other)).toBe(403);
    const admin = await api("GET", `/v1/live/${room}/online?list=fans`, { as: { userId: newId(), role: "admin" } });
    expect(admin.status, show(admin)).toBe(200);
  });
});

describe("GET /v1/live/{roomId}/joined", () => {
  it("counts the fans who joined inside the window only", async () => {
    const [room, host, fan1, fan2, stranger] = [newRoom(), newId(), newId(), newId(), newId()];
    await follow(fan1, host);
    await follow(fan2, host);
    await startSession(room, host);
    const before = new Date(Date.now() - 1_000).toISOString();
    await enter(room, fan1);
    await enter(room, fan2);
    await enter(room, stranger);
    const after = new Date(Date.now() + 1_000).toISOString();
    const inside = await api("GET", `/v1/live/${room}/joined?from=${before}&to=${after}`, { as: { userId: host } });
    expect(inside.status, show(inside)).toBe(200);
    expect(inside.body.fans).toBe(2);
    const dayBefore = new Date(Date.now() - 86_400_000).toISOString();
    const earlier = await api("GET", `/v1/live/${room}/joined?from=${dayBefore}&to=${before}`, { as: { userId: host } });
    expect(earlier.body.fans, show(earlier)).toBe(0);
  });

  it("rejects a reversed, too long or malformed window with a 400 naming the field", async () => {
    const room = newRoom();
    const cases: [string, string][] = [
      ["from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", "to"],
      ["from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z", "to"],
      ["from=yesterday&to=2026-01-01T00:00:00Z", "from"],
      ["from=2026-01-01T00:00:00Z", "to"],
    ];
    for (const [query, field] of cases) {
      const res = await api("GET", `/v1/live/${room}/joined?${query}`, { as: { userId: newId() } });
      expect(res.status, show(res)).toBe(400);
      expect(res.body.error.details[0].field, show(res)).toBe(field);
    }
  });
});

describe("GET /v1/live/{roomId}/loyal", () => {
  it("intersects (all) and unites (any) the fans of the last N sessions", async () => {
    const [room, host, a, b, c, stranger] = [newRoom(), newId(), newId(), newId(), newId(), newId()];
    for (const fan of [a, b, c]) await follow(fan, host);
    const attendance = [[a, b, stranger], [a, c], [a, b]];
    for (const present of attendance) {
      await startSession(room, host);
      for (const user of present) await enter(room, user);
      await endSession(room, host);
    }
    const all = await api("GET", `/v1/live/${room}/loyal?sessions=3&mode=all`, { as: { userId: host } });
    expect(all.status, show(all)).toBe(200);
    expect(all.body).toMatchObject({ count: 1, items: [{ userId: a }] });
    expect(all.body.sessionIds).toHaveLength(3);
    const any = await api("GET", `/v1/live/${room}/loyal?sessions=3&mode=any`, { as: { userId: host } });
    expect(any.body.count, show(any)).toBe(3);
    const lastTwo = await api("GET", `/v1/live/${room}/loyal?sessions=2&mode=all`, { as: { userId: host } });
    expect(lastTwo.body.count, show(lastTwo)).toBe(1);
    const viewer = await api("GET", `/v1/live/${room}/loyal?sessions=3&mode=any`, { as: { userId: stranger } });
    expect(viewer.body).toMatchObject({ count: 3, items: null });
  });

  it("rejects sessions out of range with a 400", async () => {
    const res = await api("GET", `/v1/live/${newRoom()}/loyal?sessions=0`, { as: { userId: newId() } });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.details[0].field).toBe("sessions");
  });
});

describe("room expiry", () => {
  it("deletes a room 6 h after its last session ended, in bounded chunks", async () => {
    const [room, host, viewer] = [newRoom(), newId(), newId()];
    const { sessionId } = await startSession(room, host);
    await enter(room, viewer);
    const stub = primary(room);
    const extra = 2 * EXPIRE_CHUNK_ROWS + 500;
    await runInDurableObject(stub, async (_instance: LiveRoom, state) => {
      for (let i = 0; i < extra; i++) {
        state.storage.sql.exec(
          `INSERT INTO attendance (session_id, user_id, is_fan, first_joined_at, last_joined_at) VALUES (?, ?, 1, 0, 0)`,
          sessionId,
          String(1_000_000 + i),
        );
      }
    });
    await endSession(room, host);
    // Not yet: nothing is deleted before 6 h.
    await runDurableObjectAlarm(stub);
    expect(await stub.lastSessions(5)).toEqual([sessionId]);
    await runInDurableObject(stub, async (instance: LiveRoom) => {
      instance.clockOffsetMs = EXPIRE_AFTER_MS + 60_000;
    });
    const attendanceRows = () =>
      runInDurableObject(stub, (_i: LiveRoom, state) => {
        try {
          return state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM attendance`).one().n;
        } catch {
          return 0; // tables dropped at expiry
        }
      });
    // One run deletes one chunk only. Counted inside the object around a single alarm() call: the
    // run re-arms the alarm for "now", and miniflare may fire it before a count taken from outside.
    const deletedByOneRun = await runInDurableObject(stub, async (instance: LiveRoom, state) => {
      const count = () => state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM attendance`).one().n;
      const before = count();
      await instance.alarm();
      return before - count();
    });
    expect(deletedByOneRun).toBe(EXPIRE_CHUNK_ROWS);
    // The alarm re-armed itself at once (miniflare fires it too); drive it to the end.
    let left = -1;
    for (let i = 0; i < 50 && left !== 0; i++) {
      await runDurableObjectAlarm(stub);
      left = await attendanceRows();
      if (left !== 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(left).toBe(0);
    expect(await stub.lastSessions(5)).toEqual([]);
    expect(await counts(room)).toMatchObject({ viewers: 0, sessionId: null, live: false });
  });

  it("is cancelled by a new session", async () => {
    const [room, host] = [newRoom(), newId()];
    await startSession(room, host);
    await endSession(room, host);
    const { sessionId } = await startSession(room, host);
    const stub = primary(room);
    await runInDurableObject(stub, async (instance: LiveRoom) => {
      instance.clockOffsetMs = EXPIRE_AFTER_MS + 60_000;
    });
    await runDurableObjectAlarm(stub);
    expect(await counts(room)).toMatchObject({ sessionId, live: true });
  });
});

describe("sharded rooms", () => {
  it("spreads viewers over 4 objects by user id and sums the counts", async () => {
    const [room, host] = [newRoom(), newId()];
    const users = Array.from({ length: 24 }, () => newId());
    const fans = users.filter((_, i) => i % 3 === 0);
    for (const fan of fans) await follow(fan, host);
    const session = await startSession(room, host, 4);
    expect(session.shards).toBe(4);
    await Promise.all(users.map((u) => enter(room, u)));
    expect(await counts(room)).toMatchObject({ viewers: users.length, onlineFans: fans.length, live: true });

    const perShard = await Promise.all([0, 1, 2, 3].map((s) => roomStub(liveEnv, room, s).getCounts(session.sessionId)));
    const expected = [0, 1, 2, 3].map((s) => users.filter((u) => shardOf(u, 4) === s).length);
    expect(perShard.map((c) => c.viewers)).toEqual(expected);
    expect(expected.filter((n) => n > 0).length).toBeGreaterThan(1);

    const status = await api("GET", `/v1/live/${room}/online/${fans[0]}`, { as: { userId: host } });
    expect(status.body, show(status)).toMatchObject({ online: true, isFan: true });

    const fanPage = await api("GET", `/v1/live/${room}/online?list=fans&limit=100`, { as: { userId: host } });
    expect(fanPage.body.items.map((i: { userId: string }) => i.userId).sort(), show(fanPage)).toEqual([...fans].sort());
  });

  it("ends the session on every shard", async () => {
    const [room, host] = [newRoom(), newId()];
    const users = Array.from({ length: 12 }, () => newId());
    await startSession(room, host, 4);
    await Promise.all(users.map((u) => enter(room, u)));
    await api("DELETE", `/v1/live/${room}/sessions/current`, { as: { userId: host } });
    const perShard = await Promise.all([0, 1, 2, 3].map((s) => roomStub(liveEnv, room, s).getCounts()));
    expect(perShard.map((c) => c.viewers)).toEqual([0, 0, 0, 0]);
  });

  it("refuses a stale session descriptor on a shard, so a Worker with an old copy rereads the primary", async () => {
    const [room, host, viewer] = [newRoom(), newId(), newId()];
    await startSession(room, host, 4);
    const old = (await primary(room).current())!;
    await enter(room, viewer);
    const fresh = await startSession(room, host, 4);
    const shard = shardOf(viewer, 4);
    const stale = await roomStub(liveEnv, room, shard).enter({ ...old, shard }, viewer, false, "http:default", "http");
    expect(stale).toEqual({ status: "stale" });
    expect((await enter(room, viewer)).sessionId).toBe(fresh.sessionId);
    expect(await counts(room)).toMatchObject({ viewers: 1, sessionId: fresh.sessionId });
  });

  it("pushes the summed counts of all shards to the host", async () => {
    const [room, host] = [newRoom(), newId()];
    const users = Array.from({ length: 12 }, () => newId());
    await startSession(room, host, 4);
    const { ws, messages } = await openSocket(room, host);
    await Promise.all(users.map((u) => enter(room, u)));
    const until = Date.now() + 5_000;
    while (!messages.some((m) => m?.viewers === users.length) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(messages.at(-1), JSON.stringify(messages)).toMatchObject({ type: "counts", viewers: users.length });
    ws.close(1000);
  });
});

describe("GET /v1/live/online?rooms=", () => {
  it("answers counts for many rooms to a service", async () => {
    const [r1, r2, host] = [newRoom(), newRoom(), newId()];
    await startSession(r1, host);
    await enter(r1, newId());
    const res = await api("GET", `/v1/live/online?rooms=${r1},${r2}`, { as: { userId: newId(), role: "service" } });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.items).toMatchObject([
      { roomId: r1, viewers: 1, live: true },
      { roomId: r2, viewers: 0, live: false },
    ]);
  });

  it("refuses ordinary users with 403 and bad lists with 400", async () => {
    const user = await api("GET", `/v1/live/online?rooms=a`, { as: { userId: newId() } });
    expect(user.status, show(user)).toBe(403);
    const tooMany = Array.from({ length: 101 }, (_, i) => `r${i}`).join(",");
    for (const rooms of [tooMany, "a,b.c", ""]) {
      const res = await api("GET", `/v1/live/online?rooms=${rooms}`, { as: { userId: newId(), role: "service" } });
      expect(res.status, show(res)).toBe(400);
      expect(res.body.error.details[0].field).toBe("rooms");
    }
  });
});

describe("where a room is created (locationHint)", () => {
  async function start(room: string, host: string, body: Record<string, unknown>) {
    const res = await api("POST", `/v1/live/${room}/sessions`, { as: { userId: host }, body: { hostId: host, ...body } });
    expect(res.status, show(res)).toBe(201);
    return res.body as { sessionId: string; location: string | null };
  }

  it("creates the room with the app's hint, records it, and works as before", async () => {
    const [room, host, fan, other] = [newRoom(), newId(), newId(), newId()];
    await follow(fan, host);
    const session = await start(room, host, { locationHint: "apac" });
    expect(session.location).toBe("apac");
    await enter(room, fan);
    await enter(room, other);
    expect(await counts(room)).toMatchObject({ viewers: 2, onlineFans: 1, sessionId: session.sessionId, live: true });
    expect((await primary(room).current())!.location).toBe("apac");
  });

  it("keeps the place of the room's creation: viewers' joins and later starts do not change it", async () => {
    const [room, host] = [newRoom(), newId()];
    const users = Array.from({ length: 8 }, () => newId());
    const first = await start(room, host, { locationHint: "oc", shards: 4 });
    await Promise.all(users.map((u) => enter(room, u)));
    await openSocket(room, newId());
    expect(await counts(room)).toMatchObject({ viewers: users.length + 1, sessionId: first.sessionId });
    // Every shard a viewer created was reached with the room's hint, and holds it.
    for (const shard of new Set(users.map((u) => shardOf(u, 4)))) {
      await runInDurableObject(roomStub(liveEnv, room, shard), async (instance: LiveRoom) => {
        expect((await instance.current())!.location).toBe("oc");
      });
    }
    const second = await start(room, host, { locationHint: "weur", shards: 4 });
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(second.location).toBe("oc");
  });

  it("places by the host's request's continent when the app gives no hint", async () => {
    const [room, host] = [newRoom(), newId()];
    const request = new Request(`http://edge.test/v1/live/${room}/sessions`, {
      method: "POST",
      headers: { Authorization: `Bearer ${await tokenFor(host)}`, "Content-Type": "application/json" },
      body: JSON.stringify({ hostId: host }),
    });
    const res = await SELF.fetch(request, { cf: { continent: "EU", longitude: "24.9", country: "FI" } });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { location: string | null }).location).toBe("eeur");
  });

  it("rejects a hint Cloudflare does not know with a 400 naming the field, starting nothing", async () => {
    const [room, host] = [newRoom(), newId()];
    const res = await api("POST", `/v1/live/${room}/sessions`, { as: { userId: host }, body: { hostId: host, locationHint: "mars" } });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.details[0].field, show(res)).toBe("locationHint");
    expect(await counts(room)).toMatchObject({ live: false, sessionId: null });
  });
});
