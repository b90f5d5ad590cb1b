/**
 * The follower and following list caches at N = 3: a follow writes two owners' lists on two
 * databases (the followee's followers, the follower's following), each key on its owner's database
 * and nowhere else; pages stay exact across follow, unfollow and re-follow; and what a reshard does
 * to the keys (key-owners.ts: the lists dropped, the epochs and unfollow records copied) leaves the
 * next read exact, built again on the owner's database.
 */
import { afterAll, expect, it } from "vitest";
import { classifyKey } from "../../src/lib/key-owners";
import { databaseOf } from "../../src/lib/redis-topology";
import { FOLLOW_LIST_ALL, followListKeys, type FollowDirection } from "../../src/social/keys";
import { newId } from "../support/api";
import { describeAtN3, newIdOn } from "../support/databases";
import { prng } from "../support/prng";
import { servicesFor } from "../counters/support";
import { followListHelpers } from "./follow-list-support";

const { services, close } = servicesFor();
afterAll(() => close());
const { expectExact, cachedList, follow, unfollowOf } = followListHelpers(services);

/** Which of the three databases hold the key. */
async function holders(key: string): Promise<number[]> {
  const found: number[] = [];
  for (let i = 0; i < 3; i++) if ((await services.redisAt(i).exists(key)) === 1) found.push(i);
  return found;
}

describeAtN3("follower and following lists, N = 3", () => {
  it("each list lives on its owner's database only, and stays exact across follow, unfollow and re-follow", async () => {
    const star = newIdOn(0, 3);
    const fans = [newIdOn(1, 3), newIdOn(2, 3), newIdOn(1, 3), newIdOn(2, 3), newIdOn(0, 3)];
    for (const fan of fans) await follow(fan, star);
    await expectExact("followers", star);
    for (const fan of fans) await expectExact("following", fan);
    expect(await holders(followListKeys.list("followers", star))).toEqual([0]);
    for (const fan of fans) {
      expect(await holders(followListKeys.list("following", fan)), `${fan}'s following list`).toEqual([databaseOf(fan, 3)]);
      expect(await holders(followListKeys.list("followers", fan)), "not read: not built").toEqual([]);
    }

    const random = prng(3);
    for (let round = 0; round < 12; round++) {
      const fan = random.pick(fans);
      if (random.next() < 0.5) await unfollowOf(fan, star);
      else await follow(fan, star);
      await expectExact("followers", star, { sizes: () => random.int(1, 4) });
      await expectExact("following", fan);
    }
    expect((await cachedList("followers", star)).sentinel).toBe(FOLLOW_LIST_ALL);
    for (const fan of fans) expect(await holders(followListKeys.epoch("following", fan))).toEqual([databaseOf(fan, 3)]);
  });

  it("a reshard drops the lists and copies their epochs and unfollow records; the next read is exact and builds on the owner's database", async () => {
    const star = newIdOn(2, 3);
    const fans = [newIdOn(0, 3), newIdOn(1, 3)];
    for (const fan of fans) await follow(fan, star);
    await unfollowOf(fans[0]!, star);
    await follow(fans[0]!, star);
    await expectExact("followers", star);
    const direction: FollowDirection = "followers";
    expect(classifyKey(followListKeys.list(direction, star))).toEqual({ action: "drop", owner: star });
    expect(classifyKey(followListKeys.list("following", star))).toEqual({ action: "drop", owner: star });
    for (const d of ["followers", "following"] as const) {
      expect(classifyKey(followListKeys.unfollowed(d, star))).toEqual({ action: "copy", owner: star });
      expect(classifyKey(followListKeys.epoch(d, star))).toEqual({ action: "copy", owner: star });
    }
    expect(await holders(followListKeys.unfollowed(direction, star))).toEqual([2]);

    // What the reshard's copy step does to a moving owner's list: gone, rebuilt by the next read.
    await services.redisFor(star).del(followListKeys.list(direction, star));
    await expectExact("followers", star, { sizes: () => 1 });
    expect(await holders(followListKeys.list(direction, star))).toEqual([2]);
    expect((await cachedList("followers", star)).ids).toEqual([fans[0], fans[1]]);
    await follow(newId(), star);
    await expectExact("followers", star);
  });
});
