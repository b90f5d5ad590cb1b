/**
 * The client's socket helpers against the Worker as deployed, over real WebSockets: the live-room
 * socket through a TCP proxy whose connections the test cuts, and through a relay that closes a
 * socket with 4001 as the server does when a token expires.
 */
import { afterEach, describe, expect, it } from "vitest";
import WS from "ws";
import { connectBadges, connectLiveRoom, createClient, mergeBadges, type Badges, type LiveRoomConnection, type LiveRoomMessage, type SocketStatus, type WebSocketClass } from "community-edge/client";
import { eventually, newId, startKillableProxy, startSocketRelay, useWorker } from "./support/worker";

const worker = useWorker();
/** Node 20 has no global WebSocket: the helpers take `ws`, as an app on Node 20 would pass it. */
const WebSocket = WS as unknown as WebSocketClass;
/** Short delays keep the test quick; the defaults are for phones (0.5 s doubling up to 15 s). */
const fast = { WebSocket, minReconnectDelayMs: 50, maxReconnectDelayMs: 400 };

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Every distinct status a helper went through, in order. */
function statusLog(conn: LiveRoomConnection) {
  const log: SocketStatus[] = [conn.state.status];
  conn.subscribe(({ status }) => {
    if (log.at(-1) !== status) log.push(status);
  });
  return log;
}

async function startSession(roomId: string, host: string) {
  const api = createClient({ baseUrl: worker.url, token: () => worker.tokenFor(host) });
  const { response, error } = await api.POST("/v1/live/{roomId}/sessions", { params: { path: { roomId } }, body: { hostId: host } });
  expect(response.status, JSON.stringify(error)).toBe(201);
}

async function enterOverHttp(roomId: string, userId: string) {
  const api = createClient({ baseUrl: worker.url, token: () => worker.tokenFor(userId) });
  const { response } = await api.POST("/v1/live/{roomId}/presence", { params: { path: { roomId } } });
  expect(response.status).toBe(200);
}

describe("connectLiveRoom", () => {
  it("after the connection is cut, reconnects, enters and watches again, and resumes receiving counts", async () => {
    const proxy = await startKillableProxy(worker.url);
    cleanup.push(proxy.close);
    const [host, viewerId, roomId] = [newId(), newId(), `room-${newId()}`];
    await startSession(roomId, host);

    const watcher = connectLiveRoom({ ...fast, baseUrl: proxy.url, token: () => worker.tokenFor(host), roomId, mode: "watch" });
    const viewer = connectLiveRoom({ ...fast, baseUrl: proxy.url, token: () => worker.tokenFor(viewerId), roomId, mode: "view" });
    cleanup.push(watcher.close, viewer.close);
    const [watcherLog, viewerLog] = [statusLog(watcher), statusLog(viewer)];

    expect((await eventually(() => watcher.state, (s) => s.counts?.viewers === 1)).counts).toMatchObject({ viewers: 1, live: true });
    expect((await eventually(() => viewer.state, (s) => s.counts !== null)).counts).toMatchObject({ viewers: 1 });

    proxy.killAll();

    // Both come back on their own: the viewer is in the room again, the watcher is pushed to again.
    await eventually(() => [watcherLog, viewerLog], (logs) => logs.every((l) => l.filter((s) => s === "open").length === 2));
    // (the logs below are asserted whole: a helper that did not come back shows as a short log)
    expect(watcherLog).toEqual(["connecting", "open", "connecting", "open"]);
    expect(viewerLog).toEqual(["connecting", "open", "connecting", "open"]);
    await enterOverHttp(roomId, newId());
    const after = await eventually(() => watcher.state, (s) => s.counts?.viewers === 2);
    expect(after).toEqual({ status: "open", counts: expect.objectContaining({ viewers: 2, live: true }) });
  }, 60_000);

  it("closed with 4001, asks the token provider for a fresh token once and reconnects with it", async () => {
    const relay = await startSocketRelay(worker.url);
    cleanup.push(relay.close);
    const [host, roomId] = [newId(), `room-${newId()}`];
    await startSession(roomId, host);
    const issued: { refresh: boolean; token: string }[] = [];
    const messages: LiveRoomMessage[] = [];
    const watcher = connectLiveRoom({
      ...fast,
      baseUrl: relay.url,
      roomId,
      mode: "watch",
      pingIntervalMs: 100,
      token: async ({ refresh }) => {
        const token = await worker.tokenFor(host);
        issued.push({ refresh, token });
        return token;
      },
      onMessage: (m) => messages.push(m),
    });
    cleanup.push(watcher.close);
    expect((await eventually(() => watcher.state, (s) => s.status === "open" && s.counts !== null)).counts).toMatchObject({ viewers: 0 });
    // Pings go out on the interval; the `pong` answers never reach the app as messages.
    expect(await eventually(() => relay.fromClients, (sent) => sent.includes("ping"))).toContain("ping");

    relay.closeAllWith(4001, "token expired");

    expect(await eventually(() => relay.connections.length, (n) => n === 2)).toBe(2);
    expect((await eventually(() => watcher.state, (s) => s.status === "open")).status).toBe("open");
    expect(issued.map((i) => i.refresh)).toEqual([false, true]);
    // The token travels as a subprotocol next to `live`, and the second connection carries the fresh one.
    expect(relay.connections.map((c) => c.protocols)).toEqual([
      ["live", issued[0]!.token],
      ["live", issued[1]!.token],
    ]);
    await enterOverHttp(roomId, newId());
    expect((await eventually(() => watcher.state, (s) => s.counts?.viewers === 1)).counts).toMatchObject({ viewers: 1, live: true });
    expect(messages.every((m) => m.type === "counts")).toBe(true);
  }, 60_000);

  it("refused at connect with an expired token (401 before the upgrade), retries once with a fresh one", async () => {
    const [host, roomId] = [newId(), `room-${newId()}`];
    await startSession(roomId, host);
    const refreshes: boolean[] = [];
    const watcher = connectLiveRoom({
      ...fast,
      baseUrl: worker.url,
      roomId,
      mode: "watch",
      token: ({ refresh }) => {
        refreshes.push(refresh);
        return worker.tokenFor(host, "user", refresh ? 600 : -60);
      },
    });
    cleanup.push(watcher.close);
    expect(await eventually(() => watcher.state, (s) => s.counts !== null)).toMatchObject({ status: "open", counts: { viewers: 0, live: true } });
    expect(refreshes).toEqual([false, true]);
  }, 60_000);

  it("a viewer's socket ends, without reconnecting, when the host ends the session", async () => {
    const [host, roomId] = [newId(), `room-${newId()}`];
    await startSession(roomId, host);
    const viewer = connectLiveRoom({ ...fast, baseUrl: worker.url, token: () => worker.tokenFor(newId()), roomId });
    cleanup.push(viewer.close);
    const log = statusLog(viewer);
    expect(await eventually(() => viewer.state.status, (s) => s === "open")).toBe("open");
    const api = createClient({ baseUrl: worker.url, token: () => worker.tokenFor(host) });
    expect((await api.DELETE("/v1/live/{roomId}/sessions/current", { params: { path: { roomId } } })).response.status).toBe(200);
    expect(await eventually(() => viewer.state.status, (s) => s === "closed")).toBe("closed");
    expect(log).toEqual(["connecting", "open", "closed"]);
  }, 60_000);
});

describe("connectBadges", () => {
  const snapshot = (dms: number): Badges => ({
    cap: 99,
    degraded: false,
    notifications: { byType: {}, total: { count: 0, capped: false } },
    broadcasts: { count: 0, capped: false },
    reddots: {},
    authors: { count: 0, capped: false },
    streams: { total: { count: 0, capped: false }, byStream: {} },
    dms: { count: dms, capped: false },
    inbox: { byType: {}, total: { count: 0, capped: false } },
    feed: { count: 0, capped: false },
  });

  it("state is the snapshot with each change merged in, kind by kind; a new snapshot replaces it", () => {
    let state = mergeBadges(null, { type: "badges", changed: { dms: { count: 1, capped: false } } });
    expect(state).toBeNull(); // a change before any snapshot has nothing to apply to
    state = mergeBadges(state, { type: "badges", badges: snapshot(2) });
    state = mergeBadges(state, { type: "badges", changed: { dms: { count: 3, capped: false }, reddots: { news: true } } });
    expect(state).toEqual({ ...snapshot(3), reddots: { news: true } });
    state = mergeBadges(state, { type: "error", error: { code: "bad_request", message: "unknown message" } });
    expect(state).toEqual({ ...snapshot(3), reddots: { news: true } });
    expect(mergeBadges(state, { type: "badges", badges: snapshot(0) })).toEqual(snapshot(0));
  });

  it("connects to GET /v1/me/live with ?cap= and the token as a subprotocol next to `live`; ends on a 4xxx refusal", async () => {
    const relay = await startSocketRelay(worker.url);
    cleanup.push(relay.close);
    relay.closeNextWith(4003, "not here yet");
    const live = connectBadges({ ...fast, baseUrl: relay.url, token: () => "jwt-1", cap: 50 });
    cleanup.push(live.close);
    expect(await eventually(() => live.state.status, (s) => s === "closed")).toBe("closed");
    expect(relay.connections).toEqual([{ url: "/v1/me/live?cap=50", protocols: ["live", "jwt-1"] }]);
  });
});

/** The badges socket is served once `GET /v1/me/live` is among the routes; until then these wait. */
describe("connectBadges against GET /v1/me/live", () => {
  /** A user's badges over HTTP, what the socket's state must equal once pushes settle. */
  async function badgesOverHttp(user: string) {
    const api = createClient({ baseUrl: worker.url, token: () => worker.tokenFor(user) });
    return (await api.GET("/v1/me/badges", { params: { query: { cap: 99 } } })).data;
  }
  async function notify(user: string, count: number) {
    const service = createClient({ baseUrl: worker.url, token: () => worker.tokenFor(newId(), "service") });
    const { response } = await service.POST("/v1/users/{id}/notifications", { params: { path: { id: user } }, body: { type: "reply", count } });
    expect(response.status).toBe(200);
  }

  it("starts from the snapshot, merges pushed changes, and after a cut connection resumes from a new snapshot", async () => {
    const proxy = await startKillableProxy(worker.url);
    cleanup.push(proxy.close);
    const user = newId();
    const messages: string[] = [];
    const live = connectBadges({ ...fast, baseUrl: proxy.url, token: () => worker.tokenFor(user), cap: 99, onMessage: (m) => messages.push(m.type === "badges" ? ("badges" in m ? "snapshot" : "changed") : m.type) });
    cleanup.push(live.close);
    expect((await eventually(() => live.state, (s) => s.badges !== null)).badges?.notifications.total).toEqual({ count: 0, capped: false });

    await notify(user, 2);
    expect((await eventually(() => live.state, (s) => s.badges?.notifications.total.count === 2)).badges).toEqual(await badgesOverHttp(user));
    expect(messages).toEqual(["snapshot", "changed"]);

    proxy.killAll();
    await notify(user, 1); // while the socket is down: the next snapshot has it
    const back = await eventually(() => live.state, (s) => s.status === "open" && s.badges?.notifications.total.count === 3);
    expect(back.badges).toEqual(await badgesOverHttp(user));
    expect(messages[2]).toBe("snapshot");
  }, 60_000);

  it("closed with 4001 when the token expires, reconnects with a fresh token and a new snapshot", async () => {
    const user = newId();
    const refreshes: boolean[] = [];
    const snapshots: number[] = [];
    let refreshedAt = Infinity;
    const live = connectBadges({
      ...fast,
      baseUrl: worker.url,
      onMessage: (m) => {
        if (m.type === "badges" && "badges" in m) snapshots.push(Date.now());
      },
      // The first token lives 2 s; the server closes the socket with 4001 when it expires.
      token: ({ refresh }) => {
        refreshes.push(refresh);
        if (refresh) refreshedAt = Date.now();
        return worker.tokenFor(user, "user", refresh ? 600 : 2);
      },
    });
    cleanup.push(live.close);
    await eventually(() => live.state.badges, (b) => b !== null);
    expect(await eventually(() => refreshes, (r) => r.includes(true), 20_000)).toEqual([false, true]);
    // The socket opened with the fresh token answers with a snapshot of its own. (On a slow machine
    // the 2 s token may already be refused at the first connect: then that is the only snapshot.)
    await eventually(() => snapshots, (t) => t.some((at) => at >= refreshedAt), 20_000);
    expect(live.state.status).toBe("open");
    expect(live.state.badges).not.toBeNull();
  }, 60_000);
});
