import { describe, expect, it } from "vitest";
import { api, newId, show } from "../support/api";
import { followCounts, ok, pageThrough } from "./support";

const as = (userId: string) => ({ as: { userId } });

describe("PUT /v1/me/blocks/{userId}", () => {
  it("blocks, answering the item; a second call is idempotent (same createdAt, changed false)", async () => {
    const [a, b] = [newId(), newId()];
    const first = await ok(api("PUT", `/v1/me/blocks/${b}`, as(a)));
    expect(first.body).toEqual({ userId: b, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), changed: true });
    const again = await ok(api("PUT", `/v1/me/blocks/${b}`, as(a)));
    expect(again.body).toEqual({ ...first.body, changed: false });
    const list = await ok(api("GET", "/v1/me/blocks", as(a)));
    expect(list.body).toEqual({ items: [{ userId: b, createdAt: first.body.createdAt }], nextCursor: null });
  });

  it("refuses to block yourself with a 400 naming userId, and stores nothing", async () => {
    const a = newId();
    const res = await api("PUT", `/v1/me/blocks/${a}`, as(a));
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.details[0].field).toBe("userId");
    expect((await ok(api("GET", "/v1/me/blocks", as(a)))).body.items).toEqual([]);
  });

  it("answers 400 naming userId for an id that is not one", async () => {
    const res = await api("PUT", "/v1/me/blocks/0", as(newId()));
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.details[0].field).toBe("userId");
  });

  it("answers 401 without a token", async () => {
    expect((await api("PUT", `/v1/me/blocks/${newId()}`)).status).toBe(401);
    expect((await api("GET", "/v1/me/blocks")).status).toBe(401);
  });

  it("answers 409 past the bound and stores nothing more; a repeat of a block held still answers 200", async () => {
    const a = newId();
    const env = { SAFETY_MAX_ENTRIES: "3" };
    const held = [newId(), newId(), newId()];
    for (const b of held) await ok(api("PUT", `/v1/me/blocks/${b}`, { ...as(a), env }));
    const over = await api("PUT", `/v1/me/blocks/${newId()}`, { ...as(a), env });
    expect(over.status, show(over)).toBe(409);
    expect(over.body.error.code).toBe("conflict");
    expect(over.body.error.details[0].field).toBe("userId");
    expect((await ok(api("PUT", `/v1/me/blocks/${held[1]}`, { ...as(a), env }))).body.changed).toBe(false);
    const list = await ok(api("GET", "/v1/me/blocks", as(a)));
    expect(list.body.items.map((i: { userId: string }) => i.userId).sort()).toEqual([...held].sort());
  });

  it("ends both follows exactly as two unfollows would, with exact counters; unblock brings none back", async () => {
    const [a, b, fan, star] = [newId(), newId(), newId(), newId()];
    await ok(api("PUT", `/v1/me/following/${b}`, as(a)));
    await ok(api("PUT", `/v1/me/following/${a}`, as(b)));
    // Follows the block has nothing to do with stay, and stay counted.
    await ok(api("PUT", `/v1/me/following/${a}`, as(fan)));
    await ok(api("PUT", `/v1/me/following/${star}`, as(b)));
    expect(await followCounts(a, b)).toEqual({ [a]: { followers: 2, following: 1 }, [b]: { followers: 1, following: 2 } });

    await ok(api("PUT", `/v1/me/blocks/${b}`, as(a)));
    expect(await followCounts(a, b)).toEqual({ [a]: { followers: 1, following: 0 }, [b]: { followers: 0, following: 1 } });
    expect((await api("GET", `/v1/users/${a}/followers`)).body.items.map((i: { userId: string }) => i.userId)).toEqual([fan]);
    expect((await api("GET", `/v1/users/${a}/following`)).body.items).toEqual([]);
    expect((await api("GET", `/v1/users/${b}/following`)).body.items.map((i: { userId: string }) => i.userId)).toEqual([star]);

    const unblocked = await ok(api("DELETE", `/v1/me/blocks/${b}`, as(a)));
    expect(unblocked.body).toEqual({ userId: b, blocked: false, changed: true });
    expect((await ok(api("DELETE", `/v1/me/blocks/${b}`, as(a)))).body.changed).toBe(false);
    expect(await followCounts(a, b)).toEqual({ [a]: { followers: 1, following: 0 }, [b]: { followers: 0, following: 1 } });
    expect((await ok(api("GET", "/v1/me/blocks", as(a)))).body.items).toEqual([]);
    // And following again works once nothing stands between them.
    expect((await ok(api("PUT", `/v1/me/following/${b}`, as(a)))).body.changed).toBe(true);
  });
});

describe("GET /v1/me/blocks", () => {
  it("pages newest first with random page sizes, every field as the blocks answered, without gaps or repeats", async () => {
    const a = newId();
    const made: { userId: string; createdAt: string }[] = [];
    for (let i = 0; i < 23; i++) {
      const res = await ok(api("PUT", `/v1/me/blocks/${newId()}`, as(a)));
      made.push({ userId: res.body.userId, createdAt: res.body.createdAt });
    }
    const expected = [...made].sort((x, y) => (x.createdAt === y.createdAt ? (BigInt(y.userId) > BigInt(x.userId) ? 1 : -1) : x.createdAt < y.createdAt ? 1 : -1));
    for (let run = 0; run < 3; run++) {
      const items = await pageThrough(a, "/v1/me/blocks", () => 1 + Math.floor(Math.random() * 7));
      expect(items).toEqual(expected);
    }
  });

  it("answers 400 naming limit and cursor for bad ones", async () => {
    const a = newId();
    const limit = await api("GET", "/v1/me/blocks?limit=0", as(a));
    expect(limit.status).toBe(400);
    expect(limit.body.error.details[0].field).toBe("limit");
    const cursor = await api("GET", "/v1/me/blocks?cursor=nope", as(a));
    expect(cursor.status).toBe(400);
    expect(cursor.body.error.details[0].field).toBe("cursor");
  });
});
