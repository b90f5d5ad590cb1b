/**
 * The inbox and broadcasts lists far from the primary region (the workers-far project: the
 * Worker's databases are read regions R = 30 ms from their primaries, `REDIS_READ_REGIONS` on,
 * and `api()` carries the consistency token as one app): a warm page is answered by the nearest
 * region, nothing crosses to the primary, well inside one far round; the caller's own writes (a
 * mark read, a message sent to them, a broadcast read) show on the next page with the token.
 */
import { describe, expect, it } from "vitest";
import { api, newId, show } from "../support/api";
import { commandNames, recordRedisRequests, redisQuiet } from "../support/redis-requests";

const service = { userId: "1", role: "service" as const };
const admin = { userId: "1", role: "admin" as const };

async function ok(method: string, path: string, as: { userId: string; role?: "service" | "admin" }, body?: unknown) {
  const res = await api(method, path, { as, body });
  expect(res.status, `${method} ${path}: ${show(res)}`).toBeLessThan(300);
  return res.body;
}

/** Median wall time of `n` calls of `read` (workerd's clock moves at I/O, which is what is timed). */
async function medianMs(n: number, read: () => Promise<unknown>) {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = Date.now();
    await read();
    times.push(Date.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)]!;
}

describe("the inbox and broadcasts lists far from the primary", () => {
  it("GET /v1/me/messages: the caller's mark read shows at once; a warm page is answered near, nothing to the primary", async () => {
    const me = newId();
    const ids: string[] = [];
    for (const type of ["system", "promo", "system"]) ids.push((await ok("POST", "/v1/messages", service, { to: [me], type, title: "t", content: `c ${type}` })).id);
    const first = await ok("GET", "/v1/me/messages?limit=10", { userId: me });
    expect(first.items.map((m: { id: string }) => m.id)).toEqual([...ids].reverse());
    await ok("POST", `/v1/me/messages/${ids[1]}/read`, { userId: me });
    const afterRead = await ok("GET", "/v1/me/messages?limit=10", { userId: me });
    expect(afterRead.items.map((m: { read: boolean }) => m.read), "the caller's own mark read, with the token").toEqual([false, true, false]);
    await ok("POST", "/v1/me/messages/read?type=system", { userId: me });
    expect((await ok("GET", "/v1/me/messages?limit=10&unread=true", { userId: me })).items).toEqual([]);
    await redisQuiet(); // the messages' queued pushes have landed: not this read's

    const { requests } = await recordRedisRequests(() => api("GET", "/v1/me/messages?limit=10", { as: { userId: me } }));
    const page = requests.filter((r) => r.commands.some((c) => c.some((a) => String(a).startsWith("badge:ib:l:"))));
    expect(commandNames(page)).toEqual(["/ evalsha_ro"]);
    expect(requests.filter((r) => r.primary), commandNames(requests).join("; ")).toEqual([]);
    const ms = await medianMs(9, () => api("GET", "/v1/me/messages?limit=10", { as: { userId: me } }));
    expect(ms, "a warm page costs less than one round to the primary (R = 30 ms)").toBeLessThan(30);
  });

  it("GET /v1/me/broadcasts: a new broadcast and the caller's mark read show at once; a warm page is answered near", async () => {
    const me = newId();
    await ok("GET", "/v1/me/broadcasts?limit=5", { userId: me }); // first sight
    const b = await ok("POST", "/v1/broadcasts", admin, { title: "far", body: "from far away" });
    const page = await ok("GET", "/v1/me/broadcasts?limit=5", { userId: me });
    expect(page.items[0]).toEqual({ id: b.id, title: "far", body: "from far away", createdAt: b.createdAt, read: false });
    await ok("POST", "/v1/me/broadcasts/read", { userId: me }, { upTo: b.id });
    const read = await ok("GET", "/v1/me/broadcasts?limit=5", { userId: me });
    expect(read.items.find((i: { id: string }) => i.id === b.id)).toMatchObject({ read: true });
    expect(BigInt(read.lastReadId)).toBeGreaterThanOrEqual(BigInt(b.id));
    await redisQuiet(); // the broadcast's queued pushes have landed: not this read's

    const { requests } = await recordRedisRequests(() => api("GET", "/v1/me/broadcasts?limit=5", { as: { userId: me } }));
    expect(requests.filter((r) => r.primary), commandNames(requests).join("; ")).toEqual([]);
    const ms = await medianMs(9, () => api("GET", "/v1/me/broadcasts?limit=5", { as: { userId: me } }));
    expect(ms, "a warm page costs less than one round to the primary (R = 30 ms)").toBeLessThan(30);
  });
});
