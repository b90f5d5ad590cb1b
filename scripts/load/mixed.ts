/**
 * The soak's mixed workload — likes, follows, service increments with idempotency keys, views,
 * badges, notifications, DMs — and its model: request `i` is a pure function of `i`, so the
 * counts every acknowledged write must have produced are computed from the number of requests
 * sent (runLoad sends requests 0…n-1, each answered before it stops), and compared with what the
 * API answers after a flush.
 */
import type { LoadRequest } from "../bench/harness.js";
import { call, type Callers } from "./target.js";

const KINDS = ["like", "follow", "increment", "view", "badges", "notification", "dm"] as const;
/** Accounts the followers follow (the last users). */
const FOLLOW_TARGETS = 10;
/** Users who receive notifications (0…R-1) and direct messages (R…2R-1). */
const RECIPIENTS = 50;

export interface MixedFixtures {
  callers: Callers;
  hotPost: string;
  /** Distinguishes this run's idempotency keys from any earlier run's. */
  runId: string;
}

const kindOf = (i: number) => KINDS[i % KINDS.length]!;
/** The position of request `i` among the requests of its kind. */
const seqOf = (i: number) => Math.floor(i / KINDS.length);
/** How many of the first `n` requests are of kind number `k`. */
const countOfKind = (n: number, k: number) => Math.max(0, Math.ceil((n - k) / KINDS.length));

export function mixedRequest(i: number, { callers, hotPost, runId }: MixedFixtures): LoadRequest {
  const kind = kindOf(i);
  const j = seqOf(i);
  const users = callers.users;
  const followers = users - FOLLOW_TARGETS;
  const base = { scenario: kind };
  switch (kind) {
    case "like": // each user's passes alternate like / unlike
      return { ...base, method: Math.floor(j / users) % 2 === 0 ? "PUT" : "DELETE", path: `/v1/posts/${hotPost}/likes/me`, headers: { authorization: callers.user(j) } };
    case "follow": {
      const k = j % followers;
      return {
        ...base,
        method: Math.floor(j / followers) % 2 === 0 ? "PUT" : "DELETE",
        path: `/v1/me/following/${callers.userId(followers + (k % FOLLOW_TARGETS))}`,
        headers: { authorization: callers.user(k) },
      };
    }
    case "increment": // every key is sent twice, the second time as a client's retry
      return {
        ...base,
        method: "POST",
        path: `/v1/counters/post/${hotPost}`,
        headers: { authorization: callers.service, "idempotency-key": `soak-${runId}-c-${Math.floor(j / 2)}` },
        body: { deltas: { comments: 1 } },
      };
    case "view":
      return { ...base, method: "POST", path: `/v1/posts/${hotPost}/views`, headers: { authorization: callers.user(j) } };
    case "badges":
      return { ...base, path: "/v1/me/badges?cap=99", headers: { authorization: callers.user(j) } };
    case "notification": {
      const key = Math.floor(j / 2); // sent twice too, to the same recipient
      return {
        ...base,
        method: "POST",
        path: `/v1/users/${callers.userId(key % RECIPIENTS)}/notifications`,
        headers: { authorization: callers.service, "idempotency-key": `soak-${runId}-n-${key}` },
        body: { type: "reply", count: 1 },
      };
    }
    case "dm":
      return { ...base, method: "POST", path: `/v1/dms/${callers.userId(RECIPIENTS + (j % RECIPIENTS))}`, headers: { authorization: callers.service }, body: { from: callers.userId(users - 1) } };
  }
}

/** Named expected values ("post likes", "followers of …", …) after the first `n` requests. */
export function expectedAfter(n: number, { callers }: MixedFixtures): Map<string, number> {
  const users = callers.users;
  const followers = users - FOLLOW_TARGETS;
  const expected = new Map<string, number>();
  // Sends of a user's alternating relation: an odd number leaves it on.
  const passes = (sent: number, population: number, k: number) => Math.max(0, Math.ceil((sent - k) / population));
  const likes = countOfKind(n, KINDS.indexOf("like"));
  let liked = 0;
  for (let k = 0; k < users; k++) liked += passes(likes, users, k) % 2;
  expected.set("post likes", liked);
  const follows = countOfKind(n, KINDS.indexOf("follow"));
  const followersOf = new Array<number>(FOLLOW_TARGETS).fill(0);
  for (let k = 0; k < followers; k++) {
    const on = passes(follows, followers, k) % 2;
    followersOf[k % FOLLOW_TARGETS]! += on;
    expected.set(`following of ${callers.userId(k)}`, on);
  }
  followersOf.forEach((count, t) => expected.set(`followers of ${callers.userId(followers + t)}`, count));
  expected.set("post comments", Math.ceil(countOfKind(n, KINDS.indexOf("increment")) / 2));
  expected.set("post views", countOfKind(n, KINDS.indexOf("view")));
  const keys = Math.ceil(countOfKind(n, KINDS.indexOf("notification")) / 2);
  const dms = countOfKind(n, KINDS.indexOf("dm"));
  for (let r = 0; r < RECIPIENTS; r++) {
    expected.set(`notifications of ${callers.userId(r)}`, passes(keys, RECIPIENTS, r));
    expected.set(`dms of ${callers.userId(RECIPIENTS + r)}`, passes(dms, RECIPIENTS, r));
  }
  return expected;
}

/** The same names, as the API answers them now. */
export async function observed(baseUrl: string, { callers, hotPost }: MixedFixtures): Promise<Map<string, number>> {
  const got = new Map<string, number>();
  const ok = <T>(res: { status: number; json: T }, what: string): T => {
    if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.json)}`);
    return res.json;
  };
  const post = ok(await call(baseUrl, "GET", `/v1/counters/post?ids=${hotPost}`), "post counters");
  const counts = (post as { items: { counts: Record<string, number> }[] }).items[0]!.counts;
  got.set("post likes", counts.likes!);
  got.set("post comments", counts.comments!);
  got.set("post views", counts.views!);
  const ids = Array.from({ length: callers.users }, (_, k) => callers.userId(k));
  for (let from = 0; from < ids.length; from += 100) {
    const page = ok(await call(baseUrl, "GET", `/v1/counters/user?ids=${ids.slice(from, from + 100).join(",")}`), "user counters");
    for (const item of (page as { items: { id: string; counts: Record<string, number> }[] }).items) {
      got.set(`following of ${item.id}`, item.counts.following!);
      got.set(`followers of ${item.id}`, item.counts.followers!);
    }
  }
  for (let r = 0; r < RECIPIENTS; r++) {
    const notes = ok(await call(baseUrl, "GET", "/v1/me/notifications", callers.user(r)), "notifications");
    got.set(`notifications of ${callers.userId(r)}`, (notes as { total: number }).total);
    const dms = ok(await call(baseUrl, "GET", "/v1/me/dms", callers.user(RECIPIENTS + r)), "dms");
    got.set(`dms of ${callers.userId(RECIPIENTS + r)}`, (dms as { total: number }).total);
  }
  return got;
}

/** Every expected name with a different observed value, as "name: expected X, got Y". */
export function mismatches(expected: Map<string, number>, got: Map<string, number>): string[] {
  return [...expected].filter(([name, value]) => got.get(name) !== value).map(([name, value]) => `${name}: expected ${value}, got ${got.get(name)}`);
}
