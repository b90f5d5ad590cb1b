/**
 * The deployment a load run talks to: its URL, whether it is this machine, callers' tokens, the
 * fixtures the scenarios share (a hot post, a live room), and — for a local `npm run dev` —
 * where its Redis and Upstash bridge are, so a run can report round trips and billed commands.
 */
import { randomInt } from "node:crypto";
import { sign } from "hono/jwt";
import { billedCommandsBetween, redisCommandStats } from "../bench/harness.js";
import { STATS_PATH, type BridgeStats } from "../stack/upstash-bridge.js";
import { devRecordPath, isOurs, readDevRecord } from "../dev/leftovers.js";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** Load may only go to this machine unless the user says otherwise (`--yes`). */
export function isLoopback(url: string): boolean {
  return LOOPBACK.has(new URL(url).hostname);
}

export interface Callers {
  /** `Bearer …` of synthetic user `k` (0 ≤ k < users). */
  user(k: number): string;
  userId(k: number): string;
  /** Raw JWT of user `k` (WebSocket `?token=`). */
  userToken(k: number): string;
  /** `Bearer …` of a trusted backend (role service). */
  service: string;
  users: number;
}

/**
 * Signs tokens for `users` synthetic users up front (runLoad builds requests synchronously). Ids
 * come from a random range per run so repeated runs do not replay each other's relations.
 */
export async function signCallers({ secret, users, ttlSeconds }: { secret: string; users: number; ttlSeconds: number }): Promise<Callers> {
  const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
  // Stays below 2^53, so ids are exact as JS numbers too (they go out as decimal strings).
  const base = 5_000_000_000_000 + randomInt(0, 1_000_000) * 100_000;
  const ids = Array.from({ length: users }, (_, k) => String(base + k));
  const tokens = await Promise.all(ids.map((sub) => sign({ sub, role: "user", exp }, secret, "HS256")));
  const service = await sign({ sub: String(base - 1), role: "service", exp }, secret, "HS256");
  return {
    user: (k) => `Bearer ${tokens[k % users]}`,
    userId: (k) => ids[k % users]!,
    userToken: (k) => tokens[k % users]!,
    service: `Bearer ${service}`,
    users,
  };
}

export async function call(baseUrl: string, method: string, path: string, auth?: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(auth ? { authorization: auth } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: kept as text for the error message
  }
  return { status: res.status, json, headers: res.headers };
}

/** A post by user `author` (0 by default) that every like, read and view goes to. */
export async function createHotPost(baseUrl: string, callers: Callers, author = 0): Promise<string> {
  const res = await call(baseUrl, "POST", "/v1/posts", callers.user(author), { text: "hot post (load test)" });
  if (res.status !== 201) throw new Error(`could not create the hot post: ${res.status} ${JSON.stringify(res.json)}`);
  return String(res.json.id);
}

/**
 * `count` hot posts by as many different authors (users 0, 1, …), so that over several Redis
 * databases the posts' and their authors' keys spread by slot instead of all sitting on one.
 */
export async function createHotPosts(baseUrl: string, callers: Callers, count: number): Promise<string[]> {
  const posts: string[] = [];
  for (let k = 0; k < count; k++) posts.push(await createHotPost(baseUrl, callers, k));
  return posts;
}

/** A live session hosted by user 0 in a room of this run. */
export async function startLiveRoom(baseUrl: string, callers: Callers): Promise<string> {
  const room = `load-${callers.userId(0)}`;
  const res = await call(baseUrl, "POST", `/v1/live/${room}/sessions`, callers.service, { hostId: callers.userId(0) });
  if (res.status !== 201) throw new Error(`could not start the live session: ${res.status} ${JSON.stringify(res.json)}`);
  return room;
}

/** Round trips (bridge requests) and billed commands of one database over a metered span. */
export interface DatabaseReading {
  roundTrips: number;
  billedCommands: number;
}

export interface StackReading extends DatabaseReading {
  /** The same per database, database 0 first. */
  byDatabase: DatabaseReading[];
}

export interface StackMeter {
  /** Starts counting; the returned function gives round trips and billed commands since. */
  start(): Promise<() => Promise<StackReading>>;
}

/** Where one database of a local stack is: its Redis (for `INFO commandstats`) and its bridge. */
export type MeteredDatabase = { redisUrl: string; restUrl: string; restToken: string };

/**
 * Counts every database of a local stack: each bridge's request count (one request = one round
 * trip) and each Redis' `INFO commandstats` (what Upstash bills).
 */
export function stackMeter(databases: MeteredDatabase[]): StackMeter {
  const bridgeRequests = async ({ restUrl, restToken }: MeteredDatabase) => {
    const res = await fetch(`${restUrl}${STATS_PATH}`, { headers: { authorization: `Bearer ${restToken}` } });
    return ((await res.json()) as BridgeStats).requests;
  };
  const snapshot = () => Promise.all(databases.map(async (d) => ({ requests: await bridgeRequests(d), commands: await redisCommandStats(d.redisUrl) })));
  return {
    async start() {
      const before = await snapshot();
      return async () => {
        const after = await snapshot();
        const byDatabase = after.map((a, i) => ({
          roundTrips: a.requests - before[i]!.requests,
          billedCommands: billedCommandsBetween(before[i]!.commands, a.commands).total,
        }));
        return {
          roundTrips: byDatabase.reduce((sum, d) => sum + d.roundTrips, 0),
          billedCommands: byDatabase.reduce((sum, d) => sum + d.billedCommands, 0),
          byDatabase,
        };
      };
    },
  };
}

/**
 * For a Worker served by `npm run dev` on this machine (its record in the data directory names
 * the port), `stackMeter` over its databases. Undefined for any other target.
 */
export function localStackMeter(baseUrl: string, dataDir: string): StackMeter | undefined {
  if (!isLoopback(baseUrl)) return undefined;
  const record = readDevRecord(devRecordPath(dataDir));
  if (!record?.stack || String(record.port) !== new URL(baseUrl).port || !isOurs({ pid: record.pid, match: "scripts/dev" })) return undefined;
  // Every Redis database of the run (`npm run dev -- --redis-databases N`), database 0 first.
  return stackMeter(record.stack.databases ?? [record.stack]);
}
