/**
 * The live badges model (test/badges/live-model.test.ts at N = 1, live-model-databases.test.ts at
 * N = 3): after random events of every kind, every device holds what `GET /v1/me/badges` answers.
 */
import { expect } from "vitest";
import { NOTIFICATION_TYPES } from "../../src/badges/notifications";
import { api, newId, show } from "../support/api";
import { prng } from "../support/prng";
import { canonical, makeBig, openLive, settled, type LiveDevice } from "./live-helpers";

const service = { userId: "1", role: "service" as const };
const admin = { userId: "1", role: "admin" as const };
export const SEED = Number(process.env.LIVE_MODEL_SEED ?? 20261124);
export const USERS = 3;
export const ROUNDS = 5;
const EVENTS_PER_ROUND = 8;

/**
 * One run of the model against the Worker's own bindings (one database, or three in the
 * workers-n3 project); `users` and `bigs` (of `authors`) as the variant sets them up.
 */
export async function runModel(options: { users: string[]; authors: string[]; bigs: string[]; rounds: number }) {
  const { users, authors, bigs } = options;
  async function ok(method: string, path: string, as: { userId: string; role?: "user" | "service" | "admin" }, body?: unknown) {
    const res = await api(method, path, { as, body });
    expect(res.status, `${method} ${path}: ${show(res)}`).toBeLessThan(300);
    return res.body;
  }
  {
    const rnd = prng(SEED);
    const streams = [newId(), newId()];
    const channels = [`m-${newId()}`, `m-${newId()}`];
    const peers = [newId(), newId()];
    for (const c of channels) await ok("PUT", `/v1/reddots/${c}`, admin);
    for (const u of users) {
      for (const a of authors) await ok("PUT", `/v1/me/following/${a}`, { userId: u });
      for (const s of streams) if (rnd.next() < 0.7) await ok("PUT", `/v1/streams/chat/${s}/members/${u}`, service);
      await ok("GET", "/v1/me/feed", { userId: u }); // a timeline that exists: posts are pushed to it
    }
    if (bigs.length > 0) await makeBig(bigs);
    const following = new Set(users.flatMap((u) => authors.map((a) => `${u}>${a}`)));
    const posts: { id: string; author: string }[] = [];
    const publish = async (author: string) => {
      const { id } = (await ok("POST", "/v1/posts", { userId: author }, { text: "p" })) as { id: string };
      posts.push({ id, author });
    };
    // Two or three devices per user; one of the first user's asks for cap=3, so caps are crossed.
    const devices: { user: string; cap?: number; d: LiveDevice }[] = [];
    for (const [i, u] of users.entries()) {
      for (let k = 0; k < rnd.int(2, 3); k++) {
        const cap = i === 0 && k === 0 ? 3 : undefined;
        devices.push({ user: u, cap, d: await openLive(u, cap ? { query: `cap=${cap}` } : {}) });
      }
    }
    const events: ((u: string) => Promise<unknown>)[] = [
      (u) => ok("POST", `/v1/users/${u}/notifications`, service, { type: rnd.pick(NOTIFICATION_TYPES), count: rnd.int(1, 3) }),
      (u) => ok("POST", `/v1/me/notifications/${rnd.pick(NOTIFICATION_TYPES)}/read`, { userId: u }),
      (u) => ok("POST", "/v1/me/notifications/read", { userId: u }),
      (u) => ok("POST", `/v1/dms/${u}`, service, { from: rnd.pick(peers), count: rnd.int(1, 2) }),
      (u) => ok("POST", `/v1/me/dms/${rnd.pick(peers)}/read`, { userId: u }),
      (u) => ok("POST", "/v1/messages", service, { to: users.filter((x) => x === u || rnd.next() < 0.5), type: rnd.pick(["system", "promo"]), title: "t", content: "c" }),
      (u) => ok("POST", "/v1/me/messages/read", { userId: u }),
      () => ok("POST", `/v1/streams/chat/${rnd.pick(streams)}/items`, service, { at: Date.now() + 5 }),
      (u) => ok("POST", `/v1/me/streams/chat/${rnd.pick(streams)}/read`, { userId: u }),
      () => ok("POST", "/v1/broadcasts", admin, { title: "b", body: "b" }),
      (u) => ok("POST", "/v1/me/broadcasts/read", { userId: u }),
      () => ok("PUT", `/v1/reddots/${rnd.pick(channels)}`, admin),
      (u) => ok("POST", `/v1/me/reddots/${rnd.pick(channels)}/seen`, { userId: u }),
      () => publish(rnd.pick(authors)),
      () => publish(rnd.pick(bigs.length > 0 ? bigs : authors)),
      () => publish(rnd.pick(bigs.length > 0 ? bigs : authors)),
      async () => {
        if (posts.length === 0) return;
        const [p] = posts.splice(rnd.int(0, posts.length - 1), 1);
        await ok("DELETE", `/v1/posts/${p!.id}`, { userId: p!.author });
      },
      async (u) => {
        // A follow or unfollow of a big account: the hub learns it from the pushes it gets.
        const a = rnd.pick(bigs.length > 0 ? bigs : authors);
        const key = `${u}>${a}`;
        await ok(following.has(key) ? "DELETE" : "PUT", `/v1/me/following/${a}`, { userId: u });
        if (following.has(key)) following.delete(key);
        else following.add(key);
      },
      (u) => {
        const followed = authors.filter((a) => following.has(`${u}>${a}`));
        return followed.length > 0 ? ok("POST", `/v1/me/authors/${rnd.pick(followed)}/seen`, { userId: u }) : Promise.resolve();
      },
      (u) => ok("GET", "/v1/me/feed", { userId: u }),
    ];
    for (let round = 0; round < options.rounds; round++) {
      for (let e = 0; e < EVENTS_PER_ROUND; e++) await rnd.pick(events)(rnd.pick(users));
      // Once pushes settle, each device holds exactly what a poll answers, for every kind.
      for (const { user, cap, d } of devices) {
        const { got, expected } = await settled(d, user, cap);
        expect(canonical(got), `round ${round}, user ${user}, cap ${cap ?? 99}`).toBe(canonical(expected));
      }
    }
    for (const { d } of devices) d.ws.close();
  }
}

