/**
 * The follower and following lists far from the primary region (the workers-far project: read
 * regions of three databases, R = 30 ms from their primaries, the app's consistency token carried
 * as `community-edge/client` carries it). With the lists cached, a follow and an unfollow show at
 * once on the next read of both users' lists: the list writes ride the follow's own round to the
 * primaries, and the token makes the region answer only once it holds them.
 */
import { afterAll, expect, it } from "vitest";
import { followListKeys } from "../../src/social/keys";
import { api, show } from "../support/api";
import { describeAtN3, newIdOn } from "../support/databases";
import { eventually } from "../support/eventually";
import { servicesFor } from "../counters/support";

const { services, close } = servicesFor();
afterAll(() => close());

async function ids(path: string): Promise<string[]> {
  const res = await api("GET", `${path}?limit=100`);
  expect(res.status, show(res)).toBe(200);
  return (res.body.items as { userId: string }[]).map((i) => i.userId);
}

/** Reads the list until its cache is built (the build follows a miss's answer, in the background). */
async function cached(direction: "followers" | "following", userId: string) {
  await ids(`/v1/users/${userId}/${direction}`);
  const built = await eventually(() => services.redisFor(userId).exists(followListKeys.list(direction, userId)), (n) => n === 1, 10_000);
  expect(built, `${direction} of ${userId} cached`).toBe(1);
}

describeAtN3("follower and following lists far from the primary region", () => {
  it("a follow, an unfollow and a re-follow show at once in both users' cached lists, with the app's token", async () => {
    expect(services.env.REDIS_READ_REGIONS).toBe("on");
    const me = newIdOn(1, 3);
    const stars = [newIdOn(0, 3), newIdOn(2, 3), newIdOn(1, 3)];
    await cached("following", me);
    for (const star of stars) await cached("followers", star);
    const mine: string[] = [];
    for (const star of stars) {
      const res = await api("PUT", `/v1/me/following/${star}`, { as: { userId: me } });
      expect(res.status, show(res)).toBe(200);
      mine.unshift(star);
      expect(await ids(`/v1/users/${me}/following`), "follow → following list").toEqual(mine);
      expect(await ids(`/v1/users/${star}/followers`), "follow → the star's followers").toEqual([me]);
    }
    await api("DELETE", `/v1/me/following/${stars[1]}`, { as: { userId: me } });
    expect(await ids(`/v1/users/${me}/following`), "unfollow → following list").toEqual([stars[2], stars[0]]);
    expect(await ids(`/v1/users/${stars[1]}/followers`)).toEqual([]);
    await api("PUT", `/v1/me/following/${stars[1]}`, { as: { userId: me } });
    expect(await ids(`/v1/users/${me}/following`), "re-follow → first again").toEqual([stars[1], stars[2], stars[0]]);
    // Answered by the caches all along: they were never dropped.
    expect(await services.redisFor(me).exists(followListKeys.list("following", me))).toBe(1);
    for (const star of stars) expect(await services.redisFor(star).exists(followListKeys.list("followers", star))).toBe(1);
  });
});
