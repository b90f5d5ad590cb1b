/**
 * Profiles far from the primary region (the workers-far project: read regions of three databases,
 * R = 30 ms from their primaries, the app's consistency token carried as `community-edge/client`
 * carries it). With the authors' profile caches warm, a post, a held post and a delete show at once
 * on the next read of the author's profile: the cache write rides the post's own round to the
 * primary, and the token makes the region answer only once it holds it.
 */
import { afterAll, expect, it } from "vitest";
import { profileKeys } from "../../src/social/keys";
import { api, show } from "../support/api";
import { describeAtN3, newIdOn } from "../support/databases";
import { eventually } from "../support/eventually";
import { servicesFor } from "../counters/support";

const { services, close } = servicesFor();
afterAll(() => close());

async function profile(authorId: string, viewer?: string): Promise<string[]> {
  const res = await api("GET", `/v1/users/${authorId}/posts?limit=100`, viewer ? { as: { userId: viewer } } : {});
  expect(res.status, show(res)).toBe(200);
  return (res.body.items as { id: string }[]).map((i) => i.id);
}

async function post(authorId: string, text: string): Promise<string> {
  const res = await api("POST", "/v1/posts", { as: { userId: authorId }, body: { text } });
  expect(res.status, show(res)).toBe(201);
  return res.body.id as string;
}

describeAtN3("profiles far from the primary region", () => {
  it("post → own profile, delete → gone, on warm caches of authors on every database, with the app's token", async () => {
    expect(services.env.REDIS_READ_REGIONS).toBe("on");
    const authors = [newIdOn(0, 3), newIdOn(1, 3), newIdOn(2, 3)];
    const reader = newIdOn(1, 3);
    for (const author of authors) {
      await profile(author);
      const built = await eventually(() => services.redisFor(author).exists(profileKeys.posts(author)), (n) => n === 1, 10_000);
      expect(built, `${author}'s profile cached`).toBe(1);
    }
    for (const author of authors) {
      const mine: string[] = [];
      for (let i = 0; i < 3; i++) {
        mine.unshift(await post(author, `far ${i}`));
        expect(await profile(author, author), "post → own profile").toEqual(mine);
        expect(await profile(author, reader), "post → another reader's view").toEqual(mine);
      }
      const gone = mine.splice(1, 1)[0]!;
      const del = await api("DELETE", `/v1/posts/${gone}`, { as: { userId: author } });
      expect(del.status, show(del)).toBe(200);
      expect(await profile(author, author), "delete → own profile").toEqual(mine);
      expect(await profile(author), "delete → anonymous").toEqual(mine);
      // Answered by the cache all along: it was never dropped.
      expect(await services.redisFor(author).exists(profileKeys.posts(author))).toBe(1);
    }
  });
});
