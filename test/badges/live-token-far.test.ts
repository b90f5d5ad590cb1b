/**
 * `X-Consistency-Token` and the badge hubs far from the primary region (the workers-far project:
 * read regions that hold a read carrying a sync token until their replica reaches it, 3 s per try
 * in the Worker's client, then the read fails). A hub keeps sync tokens for every user of its
 * shard, so a token one request carried that no region reaches would stall every user there: a
 * client can send only what the deployment issued (each entry's HMAC tag), and a hub keeps only
 * what the Worker's own writes answered, never a request's token.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { hubOf, hubShardOf, hubShards, pushChanged } from "../../src/badges/live/push";
import type { Env } from "../../src/env";
import { ConsistencyScope, runInScope } from "../../src/lib/consistency";
import { readConsistencyToken, writeConsistencyToken, type SyncTokens } from "../../src/lib/consistency-token";
import { issuedToken } from "../support/consistency";
import { api, show } from "../support/api";
import { newIdOn, workerDatabases } from "../support/databases";
import { badgesOf, closeLive, openLive, until, type LiveDevice } from "./live-helpers";

afterEach(closeLive);

const HEADER = "X-Consistency-Token";
const workerEnv = env as unknown as Env;

/** A new user on database `index` whose sockets live on `userId`'s hub shard. */
function onShardOf(userId: string, index: number): string {
  const shards = hubShards(workerEnv);
  for (;;) {
    const id = newIdOn(index, workerDatabases());
    if (id !== userId && hubShardOf(id, shards) === hubShardOf(userId, shards)) return id;
  }
}

/** The same replication history, an offset no write will reach. */
const future = (token: string) => token.replace(/\d+$/, (n) => String(Number(n) + 1_000_000_000));

const follows = (device: LiveDevice) => device.state?.notifications?.byType?.follow?.count ?? 0;

/** The hub's shared sync tokens (what every read of the shard carries). */
const seenAt = (userId: string) => runInDurableObject(hubOf(workerEnv, userId), (hub) => (hub as unknown as { seen: SyncTokens }).seen.slice());

describe("X-Consistency-Token and the badge hubs far from the primary region", () => {
  it("an altered or forged token with a future offset is refused 400, and the shard's users keep reading promptly and correctly", async () => {
    const victim = newIdOn(0, workerDatabases());
    const other = onShardOf(victim, 0);
    const attacker = newIdOn(0, workerDatabases());
    const [victimLive, otherLive] = await Promise.all([openLive(victim), openLive(other)]);
    await until(() => victimLive.state !== null && otherLive.state !== null, Boolean);

    // A token the deployment issued to the attacker for a write of theirs.
    const own = await api("PUT", `/v1/me/following/${newIdOn(0, workerDatabases())}`, { as: { userId: attacker } });
    expect(own.status, show(own)).toBe(200);
    // Database 0's entry: the shard's users' own database, whose region a future offset would hold.
    const entry = readConsistencyToken(own.headers.get(HEADER)!)[0]!;
    const altered = writeConsistencyToken([{ token: future(entry.token), tag: entry.tag }])!;
    const forged = await issuedToken({ CONSISTENCY_TOKEN_SECRET: "not this deployment's" }, [future(entry.token)]);
    for (const [what, value] of [["altered", altered], ["forged", forged]] as const) {
      const res = await api("PUT", `/v1/me/following/${victim}`, { as: { userId: attacker }, headers: { [HEADER]: value } });
      expect(res.status, `${what}: ${show(res)}`).toBe(400);
      expect(res.body.error.details, what).toEqual([expect.objectContaining({ field: HEADER })]);
    }
    // Nothing done: the victim has no follower, and their hub holds nothing of either.
    expect((await badgesOf(victim)).notifications.byType.follow ?? { count: 0 }).toMatchObject({ count: 0 });
    expect(await seenAt(victim)).not.toContain(future(entry.token));

    // The shard's users are read as before: a follow of each shows on their socket, exact, not degraded.
    for (const [userId, device] of [[victim, victimLive], [other, otherLive]] as const) {
      const res = await api("PUT", `/v1/me/following/${userId}`, { as: { userId: attacker } });
      expect(res.status, show(res)).toBe(200);
      await until(() => follows(device), (n) => n === 1);
      expect(follows(device), `${userId}'s socket`).toBe(1);
      expect(device.state!.degraded).toBe(false);
    }
  }, 60_000);

  it("a request's own token, even one no region has reached, never joins the hub's shared tokens", async () => {
    const caller = newIdOn(0, workerDatabases());
    const other = onShardOf(caller, 0);
    const follower = newIdOn(0, workerDatabases());
    const [callerLive, otherLive] = await Promise.all([openLive(caller), openLive(other)]);
    await until(() => callerLive.state !== null && otherLive.state !== null, Boolean);
    const own = await api("PUT", `/v1/me/following/${newIdOn(0, workerDatabases())}`, { as: { userId: caller } });
    // Database 0's, the shard's users' own database: a region holds their reads for it.
    const ahead = future(readConsistencyToken(own.headers.get(HEADER)!)[0]!.token);

    // A request holding a token no region has reached (sent, not written) tells the caller's hub of
    // a change, as a write's push does: the hub is told only what the request's writes answered.
    await runInScope(new ConsistencyScope([ahead]), () => pushChanged(workerEnv, [caller]));
    expect(await seenAt(caller)).not.toContain(ahead);

    // The shard's other users' reads carry nothing of it: a follow shows at once, exact.
    const res = await api("PUT", `/v1/me/following/${other}`, { as: { userId: follower } });
    expect(res.status, show(res)).toBe(200);
    await until(() => follows(otherLive), (n) => n === 1);
    expect(follows(otherLive)).toBe(1);
    expect(otherLive.state!.degraded).toBe(false);
  }, 60_000);
});
