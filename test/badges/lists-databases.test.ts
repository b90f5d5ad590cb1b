/**
 * The inbox and broadcasts lists at N = 3 (docs/badges-lists.md): a message to recipients on every
 * database keeps each one's list on their own database, exact field by field with Postgres across
 * marks read; each list read is one read-only request to its user's database; a broadcast reaches
 * the kept broadcasts of every database, so any user's first page is one read-only request to
 * their own; a database that missed one gets it back from the repair cron.
 */
import { afterAll, expect, it } from "vitest";
import { broadcastsFromPostgres, createBroadcast, listBroadcasts } from "../../src/badges/broadcasts";
import { listMessages, readAllMessages, readMessage, sendMessage } from "../../src/badges/inbox";
import { messagesFromPostgres, type InboxQuery } from "../../src/badges/inbox-list";
import { badgeKeys } from "../../src/badges/keys";
import { repairBadges } from "../../src/badges/repair";
import type { Env } from "../../src/env";
import { decodeCursor } from "../../src/lib/pagination";
import type { Services } from "../../src/lib/services";
import { servicesFor } from "../counters/support";
import { describeAtN3, newIdOn, stackDatabases } from "../support/databases";
import { commandNames, recordRedisRequests } from "../support/redis-requests";

const near = { REDIS_READ_REGIONS: "on" } satisfies Partial<Env>;
const { services, close } = servicesFor(near);
afterAll(() => close());

function deferred(base: Services = services) {
  const later: Promise<unknown>[] = [];
  const deps = Object.create(base, { waitUntil: { value: (p: Promise<unknown>) => void later.push(p) } }) as Services;
  return { deps, later };
}

async function settled<T>(read: (deps: Services) => Promise<T>): Promise<T> {
  const { deps, later } = deferred();
  const answer = await read(deps);
  await Promise.all(later);
  return answer;
}

const origins = () => stackDatabases().map((d) => new URL(d.url).origin);
const truth = (userId: string, q: InboxQuery) => messagesFromPostgres(services, userId, q, q.cursor ? BigInt(decodeCursor(q.cursor, 1)[0]!) : undefined);

describeAtN3("the inbox and broadcasts lists at N = 3", () => {
  it("a message to users on every database keeps each one's list exact, each read one read-only request to that user's database", async () => {
    const users = [0, 1, 2].map((i) => newIdOn(i, 3));
    for (const u of users) await settled((deps) => listMessages(deps, u, { limit: 5 })); // built, empty
    const ids: string[] = [];
    for (const type of ["system", "promo", "system", "order"]) ids.push((await sendMessage(services, { to: users, type, title: `t ${type}`, content: `c ${type}` })).id);
    await readMessage(services, users[0]!, ids[1]!);
    await readAllMessages(services, users[1]!, "system");
    await readAllMessages(services, users[2]!);
    for (const [i, u] of users.entries()) {
      for (const q of [{ limit: 10 }, { limit: 2 }, { limit: 3, unread: true }, { limit: 2, type: "system" }, { limit: 4, unread: false }] satisfies InboxQuery[]) {
        const { result, requests } = await recordRedisRequests(() => listMessages(deferred().deps, u, q));
        expect(result, `user on database ${i}, ${JSON.stringify(q)}`).toEqual(await truth(u, q));
        expect(commandNames(requests)).toEqual(["/ evalsha_ro"]);
        expect(requests[0]!.origin, "the user's own database").toBe(origins()[i]);
      }
      expect(await services.redisAt(i).exists(badgeKeys.inboxMessage(ids[0]!)), "the message is stored on each recipient's database").toBe(1);
    }
  });

  it("a broadcast is kept on every database: each user's first page is one read-only request to their own, exact; the cron repairs a database that missed it", async () => {
    const users = [0, 1, 2].map((i) => newIdOn(i, 3));
    for (const u of users) await settled((deps) => listBroadcasts(deps, u, { limit: 3 }));
    const b = await createBroadcast(services, "at N = 3", "to every database");
    for (let i = 0; i < 3; i++) expect(await services.redisAt(i).hexists(badgeKeys.broadcastItems(), b.id), `database ${i}`).toBe(1);
    for (const [i, u] of users.entries()) {
      const { result, requests } = await recordRedisRequests(() => listBroadcasts(deferred().deps, u, { limit: 3 }));
      expect(commandNames(requests)).toEqual(["/ evalsha_ro"]);
      expect(requests[0]!.origin).toBe(origins()[i]);
      expect(result.items[0], `user on database ${i}`).toEqual({ id: b.id, title: b.title, body: b.body, createdAt: b.createdAt, read: false });
      expect(result.unread).toBeGreaterThanOrEqual(1);
      const want = await broadcastsFromPostgres(services, undefined, 3, BigInt(result.lastReadId));
      if (want.items[0]!.id === b.id) expect({ items: result.items, nextCursor: result.nextCursor }).toEqual(want);
    }
    // Database 1 missed it (it was down): the repair cron puts it back.
    await services.redisAt(1).hdel(badgeKeys.broadcastItems(), b.id);
    await repairBadges(services);
    expect(await services.redisAt(1).hexists(badgeKeys.broadcastItems(), b.id)).toBe(1);
  });
});
