import { env, runInDurableObject, SELF } from "cloudflare:test";
import { expect } from "vitest";
import { queryRows } from "../../src/counters/store";
import { feedKeys } from "../../src/feed/keys";
import { feedBigAccountsTask } from "../../src/feed/tasks";
import { servicesFor } from "../counters/support";
import { api, show, tokenFor } from "../support/api";
import { eventually } from "../support/eventually";
import type { Env } from "../../src/env";
import { hubOf } from "../../src/badges/live";
import { closeSockets, trackSocket } from "../support/sockets";

/** One device's socket and the badges it holds: the snapshot, then every `changed` merged in. */
export type LiveDevice = {
  ws: WebSocket;
  messages: any[];
  /** Snapshot envelope (`cap`, `degraded`) and every kind, as the client would hold it. */
  state: Record<string, any> | null;
  closed: { code: number; reason: string } | null;
};

/**
 * Opens `GET /v1/me/live` as `userId` the way a browser would (token in the query by default).
 * Test files close what it opened with `afterEach(closeLive)`.
 */
export async function openLive(userId: string, options: { query?: string; token?: string; protocols?: string[] } = {}): Promise<LiveDevice> {
  const token = options.token ?? (await tokenFor(userId));
  usersWithSockets.add(userId);
  const headers: Record<string, string> = { Upgrade: "websocket" };
  if (options.protocols) headers["Sec-WebSocket-Protocol"] = options.protocols.join(", ");
  const query = options.protocols ? (options.query ?? "") : `token=${token}${options.query ? `&${options.query}` : ""}`;
  const res = await SELF.fetch(`http://edge.test/v1/me/live?${query}`, { headers });
  expect(res.status, `${res.status} ${res.status === 101 ? "" : await res.text()}`).toBe(101);
  const device: LiveDevice = { ws: trackSocket(res.webSocket!), messages: [], state: null, closed: null };
  device.ws.addEventListener("message", (event) => {
    const data = typeof event.data === "string" && event.data.startsWith("{") ? JSON.parse(event.data) : event.data;
    device.messages.push(data);
    if (data?.type === "badges" && data.badges) device.state = structuredClone(data.badges);
    else if (data?.type === "badges" && data.changed && device.state) Object.assign(device.state, structuredClone(data.changed));
  });
  device.ws.addEventListener("close", (event) => {
    device.closed = { code: event.code, reason: event.reason };
  });
  device.ws.accept();
  return device;
}

const usersWithSockets = new Set<string>();

/**
 * Closes every socket `openLive` opened and waits until each user's hub has let go of them (its
 * close handler ran): the runtime answers a client's close at once, and the hub's handler would
 * otherwise run while the file is torn down. For `afterEach`.
 */
export async function closeLive(): Promise<void> {
  const users = [...usersWithSockets];
  usersWithSockets.clear();
  await closeSockets();
  const socketsOf = (userId: string) =>
    runInDurableObject(hubOf(env as unknown as Env, userId), (_hub, state) => state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM sockets WHERE user_id = ?`, userId).one().n);
  for (const userId of users) await eventually(() => socketsOf(userId), (n) => n === 0, 5_000);
}

/** Polls `read` until `done` holds or `ms` passes; returns the last value. */
export const until = <T>(read: () => T | Promise<T>, done: (value: T) => boolean, ms = 8_000) => eventually(read, done, ms);

export async function badgesOf(userId: string, cap?: number, overrides?: Partial<Env>) {
  const res = await api("GET", `/v1/me/badges${cap ? `?cap=${cap}` : ""}`, { as: { userId }, env: overrides });
  expect(res.status, show(res)).toBe(200);
  return res.body as Record<string, any>;
}

/** Sorted-key JSON, so two equal badge bodies compare equal whatever order a hash was read in. */
export function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
    .join(",")}}`;
}

/**
 * Waits until the device holds exactly what `GET /v1/me/badges` answers now (every kind); returns
 * both. `overrides`: the Worker's bindings the poll runs with (at N = 3, the three databases').
 */
export async function settled(device: LiveDevice, userId: string, cap?: number, overrides?: Partial<Env>) {
  let expected = await badgesOf(userId, cap, overrides);
  await until(
    async () => {
      expected = await badgesOf(userId, cap, overrides);
      return canonical(device.state) === canonical(expected);
    },
    (same) => same,
  );
  return { got: device.state, expected };
}

/**
 * Makes `authors` big accounts, as test/feed/big.test.ts does: a flushed followers counter far above
 * anything other test files use (10⁹), the per-minute scan at a threshold of 9·10⁸ (a low
 * BIG_ACCOUNT_FOLLOWERS instead of following an author ten thousand times), then waits for the
 * transitions to end (their pages put the authors in their followers' pulled sets).
 */
export async function makeBig(authors: string[], overrides: Partial<Env> = {}) {
  const { services, close } = servicesFor({ ...overrides, BIG_ACCOUNT_FOLLOWERS: "900000000" });
  try {
    await queryRows(
      services.db,
      `INSERT INTO counters (entity, entity_id, field, value) SELECT 'user', unnest($1::bigint[]), 'followers', 1000000000
       ON CONFLICT (entity, entity_id, field) DO UPDATE SET value = excluded.value`,
      [authors],
    );
    for (let runs = 0; runs < 10; runs++) if (((await feedBigAccountsTask.run(services)) as { transitions: number }).transitions === 0) break;
    await eventually(
      async () => {
        const states = (await services.redis.hmget<Record<string, string | null>>(feedKeys.bigStates(), ...authors)) ?? {};
        return authors.map((a) => states[a] ?? null);
      },
      (states) => states.every((s) => s === "big"),
      30_000,
    );
  } finally {
    await close();
  }
}
