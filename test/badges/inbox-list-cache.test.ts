/**
 * The inbox list near the user (src/badges/inbox-list.ts, docs/badges-lists.md): a warm
 * `GET /v1/me/messages` is one read-only script a read region answers; a miss is answered from
 * Postgres and the list is built after the answer; the list stays exact — every page, filter and
 * cursor compared field by field with Postgres — across sends, marks read (one, all, all of a type),
 * erasure and paging past the cached window; a rebuild that read Postgres before a write stores
 * nothing; Redis down, Postgres answers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badgesEraser } from "../../src/badges/erase";
import { listMessages, readAllMessages, readMessage, sendMessage } from "../../src/badges/inbox";
import { buildInboxList, inboxAddCall, messagesFromPostgres, type InboxQuery } from "../../src/badges/inbox-list";
import { INBOX_ADD } from "../../src/badges/inbox.lua";
import { runScript } from "../../src/badges/shared";
import { badgeKeys, INBOX_LIST_WINDOW } from "../../src/badges/keys";
import type { Env } from "../../src/env";
import { decodeCursor } from "../../src/lib/pagination";
import type { Services } from "../../src/lib/services";
import { servicesFor } from "../counters/support";
import { api, newId, show } from "../support/api";
import { commandNames, recordRedisRequests, type RedisRequest } from "../support/redis-requests";
import { createChaos, type Chaos } from "../support/stack";

const near = { REDIS_READ_REGIONS: "on" } satisfies Partial<Env>;
const { services, close } = servicesFor(near);
afterAll(() => close());

/** The request's services with its `waitUntil` kept for the test to run when it chooses. */
function deferred(base: Services = services) {
  const later: Promise<unknown>[] = [];
  const deps = Object.create(base, { waitUntil: { value: (p: Promise<unknown>) => void later.push(p) } }) as Services;
  return { deps, later };
}

/** A list read with its after-the-answer work run before it returns (as the runtime does it, later). */
/** `deps` whose Postgres fails any use: a page answered with it came from Redis alone. */
function noPostgres(deps: Services): Services {
  const db = new Proxy({}, { get: () => { throw new Error("this read must not reach Postgres"); } });
  return Object.create(deps, { db: { value: db } }) as Services;
}

async function listed(userId: string, q: InboxQuery) {
  const { deps, later } = deferred();
  const page = await listMessages(deps, userId, q);
  await Promise.all(later);
  return page;
}

const truth = (userId: string, q: InboxQuery) => messagesFromPostgres(services, userId, q, q.cursor ? BigInt(decodeCursor(q.cursor, 1)[0]!) : undefined);

const send = (to: string[], type = "system", content = "hello") => sendMessage(services, { to, type, title: `t-${type}`, content }).then((r) => r.id);

/** Every page of `q` (following nextCursor), from the list and from Postgres: equal field by field. */
async function expectExact(userId: string, q: Omit<InboxQuery, "cursor">, what: string) {
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const [got, want] = [await listed(userId, { ...q, cursor }), await truth(userId, { ...q, cursor })];
    expect(got, `${what} page ${page} ${JSON.stringify(q)}`).toEqual(want);
    if (!want.nextCursor) return;
    cursor = want.nextCursor;
  }
}

const listKey = (userId: string) => badgeKeys.inboxList(userId);
/** The requests that touch an inbox list. */
const onList = (requests: RedisRequest[]) => requests.filter((r) => r.commands.some((c) => c.some((arg) => String(arg).startsWith("badge:ib:l:"))));

describe("GET /v1/me/messages near the user", () => {
  it("a warm page is one EVALSHA_RO: nothing for the primary, the page as Postgres has it", async () => {
    const me = newId();
    for (const type of ["system", "promo", "system"]) await send([me], type);
    await listed(me, { limit: 20 }); // builds
    const { result, requests } = await recordRedisRequests(() => listMessages(noPostgres(deferred().deps), me, { limit: 2 }));
    expect(commandNames(requests)).toEqual(["/ evalsha_ro"]);
    expect(requests[0]!.primary).toBe(false);
    expect(result).toEqual(await truth(me, { limit: 2 }));
    expect(result.items.map((m) => m.type)).toEqual(["system", "promo"]);
  });

  it("through the Worker: a miss is answered from Postgres, then the list is built on the primary after the answer", async () => {
    const me = newId();
    const id = await send([me], "system", "x".repeat(10_000));
    const { result, requests } = await recordRedisRequests(() => api("GET", "/v1/me/messages", { as: { userId: me }, env: near }));
    expect(result.status, show(result)).toBe(200);
    expect(result.body.items).toEqual([expect.objectContaining({ id, type: "system", content: "x".repeat(10_000), read: false })]);
    // (The request's own auth reads aside; EVAL after EVALSHA is the first load of a script.)
    const list = onList(requests).filter((r) => r.commands[0]![0]!.startsWith("evalsha"));
    expect(list.map((r) => r.primary), commandNames(list).join("; ")).toEqual([false, true]);
    expect(String(await services.redis.hget(listKey(me), "_"))).toBe("0");
    // Built: the same page again is one read-only call with the same answer.
    const again = await recordRedisRequests(() => api("GET", "/v1/me/messages", { as: { userId: me }, env: near }));
    expect(again.result.body).toEqual(result.body);
    expect(commandNames(onList(again.requests))).toEqual(["/ evalsha_ro"]);
    expect(again.requests.every((r) => !r.primary)).toBe(true);
  });

  it("the answer of a miss does not wait for the build", async () => {
    const me = newId();
    await send([me]);
    const { deps, later } = deferred();
    const answered = await recordRedisRequests(() => listMessages(deps, me, { limit: 5 }), { holdPrimary: 10_000 });
    expect(answered.result.items).toHaveLength(1);
    expect(await services.redis.exists(listKey(me)), "not built before the answer").toBe(0);
    answered.release();
    await Promise.all(later);
    expect(await services.redis.exists(listKey(me))).toBe(1);
  });

  it("stays exact across sends (several recipients), marks read one, all and all of a type, at random page sizes and filters", async () => {
    const [me, other] = [newId(), newId()];
    const types = ["system", "promo", "order"];
    let seed = 41;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const sent: string[] = [];
    for (let step = 0; step < 60; step++) {
      const r = rand(10);
      if (r < 6 || sent.length === 0) sent.push(await send(rand(2) ? [me, other] : [me], types[rand(3)]!));
      else if (r < 8) await readMessage(services, me, sent[rand(sent.length)]!);
      else if (r < 9) await readAllMessages(services, me, types[rand(3)]);
      else await readAllMessages(services, me);
      if (step % 6 === 0) {
        const q = { limit: 1 + rand(12), type: rand(2) ? types[rand(3)] : undefined, unread: [undefined, true, false][rand(3)] };
        await expectExact(me, q, `step ${step}`);
      }
    }
    expect(await services.redis.exists(listKey(me)), "the list is built and kept, not rebuilt").toBe(1);
    for (const q of [{ limit: 100 }, { limit: 3, unread: true }, { limit: 7, unread: false }, { limit: 4, type: "promo" }, { limit: 2, type: "order", unread: true }]) {
      await expectExact(me, q, "at the end");
    }
    // The lists were kept by the writes, not rebuilt: the cached answer is the one checked.
    const { result, requests } = await recordRedisRequests(() => listMessages(noPostgres(deferred().deps), me, { limit: 100 }));
    expect(commandNames(requests)).toEqual(["/ evalsha_ro"]);
    expect(result).toEqual(await truth(me, { limit: 100 }));
    await expectExact(other, { limit: 9 }, "the other recipient");
  });

  it("past the cached window: the floor rises with sends, older pages and filters that run out read Postgres, all exact", async () => {
    const me = newId();
    await send([me], "rare");
    for (let i = 0; i < INBOX_LIST_WINDOW - 1; i++) await send([me], i % 2 ? "system" : "promo");
    await listed(me, { limit: 1 }); // built with every message: floor 0
    expect(String(await services.redis.hget(listKey(me), "_"))).toBe("0");
    for (let i = 0; i < 5; i++) await send([me], "system");
    const fields = await services.redis.hlen(listKey(me));
    expect(fields, "the window plus the floor").toBe(INBOX_LIST_WINDOW + 1);
    expect(String(await services.redis.hget(listKey(me), "_"))).not.toBe("0");
    await readAllMessages(services, me, "promo");
    for (const q of [{ limit: 100 }, { limit: 37, unread: true }, { limit: 5, type: "rare" }, { limit: 100, type: "promo" }]) await expectExact(me, q, "past the window");
    // A page inside the window is still one read-only call.
    const { requests } = await recordRedisRequests(() => listMessages(noPostgres(deferred().deps), me, { limit: 50 }));
    expect(commandNames(requests)).toEqual(["/ evalsha_ro"]);
  });

  it("a rebuild that read Postgres before a send or a mark read stores nothing", async () => {
    const me = newId();
    const first = await send([me]);
    const epoch = String((await services.redis.get<number>(badgeKeys.inboxListEpoch(me))) ?? 0);
    await send([me]); // after the rebuild's epoch read, before its write
    expect(await buildInboxList(services, me, epoch)).toBe(-1);
    expect(await services.redis.exists(listKey(me))).toBe(0);
    const now = String(await services.redis.get<number>(badgeKeys.inboxListEpoch(me)));
    await readMessage(services, me, first);
    expect(await buildInboxList(services, me, now)).toBe(-1);
    await expectExact(me, { limit: 10 }, "after the refused builds");
  });

  it("a send whose list upkeep lands after a mark read of the message keeps the read flag", async () => {
    const me = newId();
    await listed(me, { limit: 5 }); // built, empty
    const id = await send([me]);
    await readMessage(services, me, id);
    // The send's upkeep once more, late (as when it reached Redis after the mark read's).
    const [row] = (await truth(me, { limit: 1 })).items;
    const { keys, args } = inboxAddCall([me], { id, type: row!.type, title: row!.title, content: row!.content, createdAt: row!.createdAt });
    await runScript(services.redis, INBOX_ADD, keys, args);
    expect(String(await services.redis.hget(listKey(me), id))).toBe("1system");
    await expectExact(me, { limit: 5 }, "read");
  });

  it("a listed message whose stored JSON is gone is a miss: Postgres answers, the list is rebuilt", async () => {
    const me = newId();
    const id = await send([me]);
    await listed(me, { limit: 5 });
    await services.redis.del(badgeKeys.inboxMessage(id));
    await expectExact(me, { limit: 5 }, "stale");
    expect(await services.redis.exists(badgeKeys.inboxMessage(id)), "rewritten by the rebuild").toBe(1);
  });

  it("erasure drops the list and moves its epoch", async () => {
    const me = newId();
    await send([me]);
    await listed(me, { limit: 5 });
    const epoch = String(await services.redis.get<number>(badgeKeys.inboxListEpoch(me)));
    let cursor: string | null = null;
    for (let i = 0; i < 5; i++) {
      const step = await badgesEraser.step(services, me, cursor);
      if ("done" in step) break;
      cursor = step.cursor;
    }
    expect(await services.redis.exists(listKey(me))).toBe(0);
    expect(await buildInboxList(services, me, epoch)).toBe(-1);
    expect(await listed(me, { limit: 5 })).toEqual({ items: [], nextCursor: null });
  });
});

describe("GET /v1/me/messages with Redis down", () => {
  let chaos: Chaos;
  beforeAll(async () => (chaos = await createChaos()));
  afterAll(async () => {
    await chaos.setRedisDown(false);
    await chaos.close();
  });

  it("answers from Postgres", async () => {
    const me = newId();
    await send([me], "system");
    await send([me], "promo");
    const viaChaos = { UPSTASH_REDIS_REST_URL: chaos.restUrl, UPSTASH_REDIS_REST_TOKEN: chaos.restToken };
    await chaos.setRedisDown(true);
    const res = await api("GET", "/v1/me/messages?limit=1", { as: { userId: me }, env: viaChaos });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toEqual(await truth(me, { limit: 1 }));
  });
});
