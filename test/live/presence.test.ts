import { runInDurableObject, SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { CLOSE_TOKEN_EXPIRED, PRESENCE_TIMEOUT_MS, type LiveRoom } from "../../src/live/room";
import { closeSockets, trackSocket } from "../support/sockets";
import { api, newId, show, tokenFor } from "../support/api";
import { counts, enter, eventually, follow, leave, newRoom, openSocket, primary, startSession } from "./helpers";

afterEach(closeSockets);

describe("POST /v1/live/{roomId}/presence", () => {
  it("counts a user who enters twice as one viewer", async () => {
    const [room, host, viewer] = [newRoom(), newId(), newId()];
    await startSession(room, host);
    expect((await enter(room, viewer)).joined).toBe(true);
    expect((await enter(room, viewer)).joined).toBe(false);
    expect(await counts(room)).toMatchObject({ viewers: 1, onlineFans: 0, live: true });
  });

  it("counts a follower of the host as an online fan, and others only as viewers", async () => {
    const [room, host, fan, stranger] = [newRoom(), newId(), newId(), newId()];
    await follow(fan, host);
    await startSession(room, host);
    expect((await enter(room, fan)).isFan).toBe(true);
    expect((await enter(room, stranger)).isFan).toBe(false);
    expect(await counts(room)).toMatchObject({ viewers: 2, onlineFans: 1 });
    const res = await api("GET", `/v1/live/${room}/online/${fan}`, { as: { userId: stranger } });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({ online: true, isFan: true });
  });

  it("answers 409 when the room has no live session", async () => {
    const res = await api("POST", `/v1/live/${newRoom()}/presence`, { as: { userId: newId() } });
    expect(res.status, show(res)).toBe(409);
  });

  it("rejects a bad room id with a 400 naming roomId", async () => {
    for (const bad of ["a.b", "x".repeat(65), "sp%20ace"]) {
      const res = await api("POST", `/v1/live/${bad}/presence`, { as: { userId: newId() } });
      expect(res.status, show(res)).toBe(400);
      expect(res.body.error.details[0].field).toBe("roomId");
    }
  });

  it("drops an HTTP viewer whose last refresh is older than the timeout", async () => {
    const [room, host, stale, fresh] = [newRoom(), newId(), newId(), newId()];
    await startSession(room, host);
    await enter(room, stale);
    await runInDurableObject(primary(room), async (instance: LiveRoom) => {
      // `fresh` refreshes half a timeout later; the sweep runs just after `stale` times out.
      instance.clockOffsetMs = PRESENCE_TIMEOUT_MS / 2;
    });
    await enter(room, fresh);
    const dropped = await runInDurableObject(primary(room), (instance: LiveRoom) => instance.sweep(Date.now() + PRESENCE_TIMEOUT_MS + 1_000));
    expect(dropped).toEqual({ dropped: 1 });
    const after = await api("GET", `/v1/live/${room}/online/${stale}`, { as: { userId: host } });
    expect(after.body.online, show(after)).toBe(false);
    expect(await counts(room)).toMatchObject({ viewers: 1 });
  });
});

describe("DELETE /v1/live/{roomId}/presence", () => {
  it("leaves, and leaving twice is fine", async () => {
    const [room, host, viewer] = [newRoom(), newId(), newId()];
    await startSession(room, host);
    await enter(room, viewer);
    expect(await leave(room, viewer)).toMatchObject({ online: false, left: true });
    expect(await leave(room, viewer)).toMatchObject({ online: false, left: false });
    expect(await counts(room)).toMatchObject({ viewers: 0, onlineFans: 0 });
  });

  it("keeps a user on two devices as one viewer until both have left", async () => {
    const [room, host, viewer] = [newRoom(), newId(), newId()];
    await follow(viewer, host);
    await startSession(room, host);
    await enter(room, viewer, "phone");
    await enter(room, viewer, "laptop");
    expect(await counts(room)).toMatchObject({ viewers: 1, onlineFans: 1 });
    expect(await leave(room, viewer, "phone")).toMatchObject({ online: true, left: false });
    expect(await counts(room)).toMatchObject({ viewers: 1, onlineFans: 1 });
    expect(await leave(room, viewer, "laptop")).toMatchObject({ online: false, left: true });
    expect(await counts(room)).toMatchObject({ viewers: 0, onlineFans: 0 });
  });
});

describe("GET /v1/live/{roomId}/ws", () => {
  it("joins the room while the socket is open and leaves when it closes", async () => {
    const [room, host, viewer] = [newRoom(), newId(), newId()];
    await follow(viewer, host);
    await startSession(room, host);
    const { ws } = await openSocket(room, viewer);
    expect(await counts(room)).toMatchObject({ viewers: 1, onlineFans: 1 });
    ws.close(1000, "bye");
    const after = await eventually(() => counts(room), (c) => c.viewers === 0);
    expect(after).toMatchObject({ viewers: 0, onlineFans: 0 });
  });

  it("keeps a socket and an HTTP device as one viewer until both are gone", async () => {
    const [room, host, viewer] = [newRoom(), newId(), newId()];
    await startSession(room, host);
    const { ws } = await openSocket(room, viewer);
    await enter(room, viewer);
    ws.close(1000, "bye");
    await new Promise((r) => setTimeout(r, 200));
    expect(await counts(room)).toMatchObject({ viewers: 1 });
    await leave(room, viewer);
    expect(await counts(room)).toMatchObject({ viewers: 0 });
  });

  it("drops a socket that stopped answering for longer than the timeout", async () => {
    const [room, host, viewer] = [newRoom(), newId(), newId()];
    await startSession(room, host);
    const { ws } = await openSocket(room, viewer);
    const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
    const swept = await runInDurableObject(primary(room), (instance: LiveRoom) => instance.sweep(Date.now() + PRESENCE_TIMEOUT_MS + 1_000));
    expect(swept).toEqual({ dropped: 1 });
    expect(await closed).toBe(1001);
    expect(await counts(room)).toMatchObject({ viewers: 0 });
  });

  it("closes each socket with 4001 within 2 s of its token's exp (the alarm is set for it); a viewer leaves", async () => {
    const [room, host, viewer] = [newRoom(), newId(), newId()];
    await startSession(room, host);
    const exp = Math.floor(Date.now() / 1000) + 3;
    const watching = await openSocket(room, host, "", await tokenFor(host, "user", 600, { exp: exp + 2 }));
    const viewing = await openSocket(room, viewer, "", await tokenFor(viewer, "user", 600, { exp }));
    const closeOf = (ws: WebSocket) => new Promise<{ code: number; reason: string; at: number }>((resolve) => ws.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason, at: Date.now() })));
    const [viewerClosed, hostClosed] = [closeOf(viewing.ws), closeOf(watching.ws)];
    const due = await runInDurableObject(primary(room), (_room: LiveRoom, state) => state.storage.sql.exec<{ due_at: number }>(`SELECT due_at FROM schedule WHERE kind = 'tokens'`).one().due_at);
    expect(due).toBe(exp * 1000);
    expect(await counts(room)).toMatchObject({ viewers: 1 });

    const first = await viewerClosed;
    expect(first).toMatchObject({ code: CLOSE_TOKEN_EXPIRED, reason: "token expired" });
    expect(first.at - exp * 1000).toBeGreaterThanOrEqual(0);
    expect(first.at - exp * 1000).toBeLessThan(2_000);
    expect(await counts(room)).toMatchObject({ viewers: 0 });
    // The alarm came back for the host's later token.
    const second = await hostClosed;
    expect(second.code).toBe(CLOSE_TOKEN_EXPIRED);
    expect(second.at - (exp + 2) * 1000).toBeGreaterThanOrEqual(0);
    expect(second.at - (exp + 2) * 1000).toBeLessThan(2_000);
  });

  it("answers ping with pong", async () => {
    const [room, host, viewer] = [newRoom(), newId(), newId()];
    await startSession(room, host);
    const { ws, messages } = await openSocket(room, viewer);
    ws.send("ping");
    const got = await eventually(async () => messages.slice(), (m) => m.includes("pong"));
    expect(got).toContain("pong");
    ws.close(1000);
  });

  it("pushes {viewers, onlineFans} to the host's socket when the room changes", async () => {
    const [room, host, fan] = [newRoom(), newId(), newId()];
    await follow(fan, host);
    await startSession(room, host);
    const { ws, messages } = await openSocket(room, host);
    await enter(room, fan);
    const got = await eventually(async () => messages.slice(), (m) => m.some((x) => x?.type === "counts" && x.onlineFans === 1));
    expect(got.at(-1)).toMatchObject({ type: "counts", viewers: 1, onlineFans: 1, live: true });
    expect(await counts(room)).toMatchObject({ viewers: 1 }); // the host watches, is not a viewer
    ws.close(1000);
  });

  it("accepts the token as a subprotocol and answers with `live`", async () => {
    const [room, host, viewer] = [newRoom(), newId(), newId()];
    await startSession(room, host);
    const res = await SELF.fetch(`http://edge.test/v1/live/${room}/ws`, {
      headers: { Upgrade: "websocket", "Sec-WebSocket-Protocol": `live, ${await tokenFor(viewer)}` },
    });
    expect(res.status).toBe(101);
    expect(res.headers.get("Sec-WebSocket-Protocol")).toBe("live");
    trackSocket(res.webSocket!).accept();
    expect(await counts(room)).toMatchObject({ viewers: 1 });
    res.webSocket!.close(1000);
  });

  it("refuses a missing or bad token with 401 and a plain GET with 400", async () => {
    const room = newRoom();
    const noToken = await SELF.fetch(`http://edge.test/v1/live/${room}/ws`, { headers: { Upgrade: "websocket" } });
    expect(noToken.status).toBe(401);
    const badToken = await SELF.fetch(`http://edge.test/v1/live/${room}/ws?token=nope`, { headers: { Upgrade: "websocket" } });
    expect(badToken.status).toBe(401);
    const plain = await SELF.fetch(`http://edge.test/v1/live/${room}/ws?token=${await tokenFor(newId())}`);
    expect(plain.status).toBe(400);
  });
});

describe("the room object", () => {
  it("rebuilds its in-memory counts from SQLite when it wakes", async () => {
    const [room, host, fan, other] = [newRoom(), newId(), newId(), newId()];
    await follow(fan, host);
    await startSession(room, host);
    await enter(room, fan);
    await enter(room, other);
    const rebuilt = await runInDurableObject(primary(room), async (instance: LiveRoom) => {
      // What eviction loses, then what the constructor does.
      const internals = instance as unknown as { counts: { viewers: number; onlineFans: number }; load(): void };
      internals.counts = { viewers: 0, onlineFans: 0 };
      internals.load();
      return instance.getCounts();
    });
    expect(rebuilt).toMatchObject({ viewers: 2, onlineFans: 1, live: true });
  });
});

describe("benchmark-only routes", () => {
  it("are not in the Worker (the bench entry adds them)", async () => {
    const room = newRoom();
    const naive = await api("GET", `/v1/live/${room}/naive-online`, { as: { userId: newId() } });
    expect(naive.status, show(naive)).toBe(404);
    const seed = await api("POST", `/v1/live/${room}/bench-seed`, { as: { userId: newId(), role: "service" }, body: { userIds: [newId()] } });
    expect(seed.status, show(seed)).toBe(404);
  });
});
