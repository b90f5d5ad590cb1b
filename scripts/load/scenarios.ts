/**
 * What `npm run load` sends: the requests a community app's screens make most, each scenario a
 * function from request number to request. Users rotate over the synthetic population so that
 * per-user write limits (wrangler.toml `[[ratelimits]]`) hold at full speed, as with real users.
 */
import type { LoadRequest } from "../bench/harness.js";
import type { Callers } from "./target.js";

export interface Fixtures {
  callers: Callers;
  /** `hotPosts[0]`. */
  hotPost: string;
  /**
   * The posts likes and reads go to: one by default (`npm run load -- --posts P` for more); user
   * `k` always likes `hotPosts[k mod P]`, so each pair still alternates like / unlike.
   */
  hotPosts: string[];
  room: string;
}

export interface Scenario {
  name: string;
  what: string;
  request(i: number, f: Fixtures): LoadRequest;
}

/** Users a follow-churn run follows and unfollows (a few popular accounts, as in real churn). */
const FOLLOW_TARGETS = 10;

export const SCENARIOS: Scenario[] = [
  {
    name: "likes",
    what: "like then unlike the hot post, each user in turn",
    request: (i, { callers, hotPosts }) => ({
      // A user's first pass likes, the next unlikes: the counter moves on every request.
      method: Math.floor(i / callers.users) % 2 === 0 ? "PUT" : "DELETE",
      path: `/v1/posts/${hotPosts[(i % callers.users) % hotPosts.length]}/likes/me`,
      headers: { authorization: callers.user(i) },
    }),
  },
  {
    name: "reads",
    what: "the hot post's counters and the post itself",
    request: (i, { hotPosts }) => {
      const post = hotPosts[Math.floor(i / 2) % hotPosts.length];
      return { path: i % 2 === 0 ? `/v1/counters/post?ids=${post}` : `/v1/posts/${post}` };
    },
  },
  {
    name: "feed",
    what: "first page of the home timeline",
    request: (i, { callers }) => ({ path: "/v1/me/feed?limit=20", headers: { authorization: callers.user(i) } }),
  },
  {
    name: "badges",
    what: "every unread badge in one call",
    request: (i, { callers }) => ({ path: "/v1/me/badges?cap=99", headers: { authorization: callers.user(i) } }),
  },
  {
    name: "live",
    what: "join the live room over a WebSocket, ask the counts, leave",
    request: (i, { callers, room }) => ({
      // User 0 hosts; viewers are everyone else.
      path: `/v1/live/${room}/ws?token=${callers.userToken(1 + (i % (callers.users - 1)))}`,
      webSocket: { send: "counts" },
    }),
  },
  {
    name: "push",
    what: "open the live badge socket, get a notification pushed, close",
    request: (i, { callers }) => {
      const user = 1 + (i % (callers.users - 1));
      return {
        // The snapshot arrives first; then a service notifies the user and the session waits for the push.
        path: `/v1/me/live?token=${callers.userToken(user)}`,
        webSocket: {
          then: {
            method: "POST",
            path: `/v1/users/${callers.userId(user)}/notifications`,
            headers: { authorization: callers.service, "content-type": "application/json" },
            body: JSON.stringify({ type: "reply", count: 1 }),
          },
        },
      };
    },
  },
  {
    name: "follows",
    what: "follow then unfollow popular accounts",
    request: (i, { callers }) => {
      // The last FOLLOW_TARGETS users are the accounts followed; each other user alternates
      // following and unfollowing the same one.
      const followers = callers.users - FOLLOW_TARGETS;
      const k = i % followers;
      return {
        method: Math.floor(i / followers) % 2 === 0 ? "PUT" : "DELETE",
        path: `/v1/me/following/${callers.userId(followers + (k % FOLLOW_TARGETS))}`,
        headers: { authorization: callers.user(k) },
      };
    },
  },
];

/**
 * The HTTP scenarios taken in turn: request `i` is request ⌊i/5⌋ of scenario `i mod 5`, so the
 * mix is the same whatever the clients' speed (the closed loop sends requests in order) and at
 * every number of databases. The WebSocket scenarios stay out: a session holds its client for the
 * whole session (for `push`, up to its 10 s timeout when a refused notification pushes nothing),
 * which would make the mix depend on how often Redis refuses.
 */
const MIXED_PARTS = ["likes", "reads", "feed", "badges", "follows"].map((name) => SCENARIOS.find((s) => s.name === name)!);

SCENARIOS.push({
  name: "mixed",
  what: `${MIXED_PARTS.map((s) => s.name).join(", ")} in turn (each request labelled with its own)`,
  request: (i, fixtures) => {
    const part = MIXED_PARTS[i % MIXED_PARTS.length]!;
    return { ...part.request(Math.floor(i / MIXED_PARTS.length), fixtures), scenario: part.name };
  },
});

/** What `npm run load` runs without `--scenarios`: each scenario alone (not `mixed`, which repeats them). */
export const DEFAULT_SCENARIOS = SCENARIOS.filter((s) => s.name !== "mixed").map((s) => s.name);

/** Scenarios by name, in the order given; throws on an unknown name. */
export function pickScenarios(names: string): Scenario[] {
  return names.split(",").map((name) => {
    const scenario = SCENARIOS.find((s) => s.name === name.trim());
    if (!scenario) throw new Error(`unknown scenario "${name}" (known: ${SCENARIOS.map((s) => s.name).join(", ")})`);
    return scenario;
  });
}
