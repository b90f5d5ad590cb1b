/**
 * What a live socket is sent: only the kinds whose value changed, whatever order a read listed a
 * hash's fields in; and the hub's writes of one pass, a few statements for any number of rows.
 */
import { describe, expect, it } from "vitest";
import { changedKinds, sameValue, type BadgeValues } from "../../src/badges/live/values";
import { HubWrites } from "../../src/badges/live/writes";

describe("sameValue", () => {
  it("is equal for the same fields in another order, at any depth", () => {
    expect(sameValue({ a: 1, b: { c: [1, 2], d: "x" } }, { b: { d: "x", c: [1, 2] }, a: 1 })).toBe(true);
    expect(sameValue([{ a: 1, b: 2 }], [{ b: 2, a: 1 }])).toBe(true);
    expect(sameValue(null, null)).toBe(true);
  });

  it("tells apart a differing value, a missing or extra field, an array from an object, and null", () => {
    expect(sameValue({ a: 1, b: 2 }, { a: 1, b: 3 })).toBe(false);
    expect(sameValue({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(sameValue({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameValue({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(sameValue([1, 2], [2, 1])).toBe(false);
    expect(sameValue([1], { 0: 1 })).toBe(false);
    expect(sameValue({}, null)).toBe(false);
    expect(sameValue(0, "0")).toBe(false);
    expect(sameValue({ a: { b: [1, { c: 1 }] } }, { a: { b: [1, { c: 2 }] } })).toBe(false);
  });
});

describe("changedKinds", () => {
  const sent = {
    notifications: { total: 3, byType: { like: 2, follow: 1 } },
    dms: { total: 1, byConversation: { c1: 1 } },
  } as unknown as BadgeValues;

  it("names nothing when only the order of fields differs", () => {
    const reordered = {
      dms: { byConversation: { c1: 1 }, total: 1 },
      notifications: { byType: { follow: 1, like: 2 }, total: 3 },
    } as unknown as BadgeValues;
    expect(changedKinds(sent, reordered)).toEqual({});
  });

  it("names exactly the kinds whose value changed, with their new value", () => {
    const current = {
      notifications: { byType: { follow: 1, like: 3 }, total: 4 },
      dms: { total: 1, byConversation: { c1: 1 } },
    } as unknown as BadgeValues;
    expect(changedKinds(sent, current)).toEqual({ notifications: { byType: { follow: 1, like: 3 }, total: 4 } });
  });

  it("names a kind the socket was never sent", () => {
    const current = { ...sent, feed: { unseen: 2 } } as unknown as BadgeValues;
    expect(changedKinds(sent, current)).toEqual({ feed: { unseen: 2 } });
  });
});

describe("HubWrites", () => {
  /** An SQL stand-in that keeps each statement with the rows its one JSON parameter carries. */
  function recorder() {
    const statements: { table: string; rows: unknown[][] }[] = [];
    const sql = {
      exec(query: string, ...params: unknown[]) {
        expect(params).toHaveLength(1);
        statements.push({ table: /UPDATE (\w+)/.exec(query)![1]!, rows: JSON.parse(params[0] as string) });
        return undefined as never;
      },
    };
    return { sql, statements };
  }

  it("writes a pass of any size as statements of at most 500 rows, every row once", () => {
    const writes = new HubWrites();
    for (let i = 0; i < 1_201; i++) writes.state(`u${i}`, 50, `{"n":${i}}`, i % 2 ? 0 : i, i % 3 ? undefined : i);
    for (let i = 0; i < 3; i++) writes.sentTo(`c${i}`, 100 + i);
    const { sql, statements } = recorder();
    writes.commit(sql);

    const states = statements.filter((s) => s.table === "state");
    expect(states.map((s) => s.rows.length)).toEqual([500, 500, 201]);
    const rows = states.flatMap((s) => s.rows);
    expect(rows[7]).toEqual(["u7", 50, `{"n":7}`, 0, null]);
    expect(rows[6]).toEqual(["u6", 50, `{"n":6}`, 6, 6]);
    expect(new Set(rows.map((r) => r[0])).size).toBe(1_201);
    expect(statements.filter((s) => s.table === "sockets").flatMap((s) => s.rows)).toEqual([
      ["c0", 100],
      ["c1", 101],
      ["c2", 102],
    ]);
  });

  it("writes a pair or a socket recorded twice once, as last recorded, keeping the later post counted and the read", () => {
    const writes = new HubWrites();
    writes.state("u1", 50, `{"n":1}`, 700, 5);
    writes.state("u1", 50, `{"n":2}`, 0);
    writes.state("u1", 99, `{"n":3}`);
    writes.sentTo("c1", 10);
    writes.sentTo("c1", 20);
    const { sql, statements } = recorder();
    writes.commit(sql);
    expect(statements.map((s) => s.rows)).toEqual([
      [
        ["u1", 50, `{"n":2}`, 700, 5],
        ["u1", 99, `{"n":3}`, 0, null],
      ],
      [["c1", 20]],
    ]);
  });

  it("writes dues before sends, keeps the soonest due, and writes nothing twice", () => {
    const writes = new HubWrites();
    writes.dueAt("c1", 900);
    writes.dueAt("c2", null);
    writes.dueAt("c3", 400);
    writes.sentTo("c1", 10);
    expect(writes.due).toBe(400);
    writes.wakeBy(300); // a push recorded as due at 300 already: nothing written, the alarm by then
    expect(writes.due).toBe(300);
    const { sql, statements } = recorder();
    writes.commit(sql);
    expect(statements.map((s) => s.rows)).toEqual([
      [
        ["c1", 900],
        ["c2", null],
        ["c3", 400],
      ],
      [["c1", 10]],
    ]);
    writes.commit(sql);
    expect(statements).toHaveLength(2);
  });
});
