import { env, runInDurableObject, SELF } from "cloudflare:test";
import { expect } from "vitest";
import type { Env } from "../../src/env";
import type { LiveRoom } from "../../src/live/room";
import { roomStub } from "../../src/live/rooms";
import { api, newId, show, tokenFor } from "../support/api";
import { eventually as poll } from "../support/eventually";
import { trackSocket } from "../support/sockets";

export const liveEnv = env as unknown as Env;

/** A fresh room id nobody else uses. */
export function newRoom(): string {
  return `room-${newId()}`;
}

/** Starts a session in `roomId` for `hostId` (as the host) and returns its body. */
export async function startSession(roomId: string, hostId: string, shards?: number) {
  const res = await api("POST", `/v1/live/${roomId}/sessions`, { as: { userId: hostId }, body: shards ? { hostId, shards } : { hostId } });
  expect(res.status, show(res)).toBe(201);
  return res.body as { sessionId: string; shards: number };
}

export async function enter(roomId: string, userId: string, device?: string) {
  const res = await api("POST", `/v1/live/${roomId}/presence${device ? `?device=${device}` : ""}`, { as: { userId } });
  expect(res.status, show(res)).toBe(200);
  return res.body;
}

export async function leave(roomId: string, userId: string, device?: string) {
  const res = await api("DELETE", `/v1/live/${roomId}/presence${device ? `?device=${device}` : ""}`, { as: { userId } });
  expect(res.status, show(res)).toBe(200);
  return res.body;
}

export async function counts(roomId: string, as = newId()) {
  const res = await api("GET", `/v1/live/${roomId}/online`, { as: { userId: as } });
  expect(res.status, show(res)).toBe(200);
  return res.body as { viewers: number; onlineFans: number; sessionId: string | null; live: boolean };
}

export async function follow(followerId: string, followeeId: string, method: "PUT" | "DELETE" = "PUT") {
  const res = await api(method, `/v1/me/following/${followeeId}`, { as: { userId: followerId } });
  expect(res.status, show(res)).toBe(200);
}

export const unfollow = (followerId: string, followeeId: string) => follow(followerId, followeeId, "DELETE");

/**
 * Opens a WebSocket to the room as `userId` through the Worker, the way a browser would. Test files
 * close what it opened with `afterEach(closeSockets)` (test/support/sockets.ts).
 */
export async function openSocket(roomId: string, userId: string, query = "", token?: string) {
  token ??= await tokenFor(userId);
  const res = await SELF.fetch(`http://edge.test/v1/live/${roomId}/ws?token=${token}${query}`, { headers: { Upgrade: "websocket" } });
  expect(res.status, `${res.status} ${res.status === 101 ? "" : await res.text()}`).toBe(101);
  const ws = trackSocket(res.webSocket!);
  const messages: any[] = [];
  ws.addEventListener("message", (event) => {
    messages.push(typeof event.data === "string" && event.data.startsWith("{") ? JSON.parse(event.data) : event.data);
  });
  ws.accept();
  return { ws, messages };
}

/** Polls `read` until `done` holds or `ms` passes; returns the last value. */
export const eventually = <T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 3_000) => poll(read, done, ms);

export const primary = (roomId: string) => roomStub(liveEnv, roomId);

/**
 * Points the fan lookups of `roomId`'s objects (all `shards` of it; 1: unsharded) at other Redis
 * databases, e.g. a chaos pair's bridge, or three databases (`UPSTASH_REDIS_DATABASES`): an object
 * looks new viewers up itself, with its own bindings, not the request's.
 */
export async function lookUpFansThrough(
  roomId: string,
  bindings: Pick<Env, "UPSTASH_REDIS_REST_URL" | "UPSTASH_REDIS_REST_TOKEN"> & { UPSTASH_REDIS_DATABASES?: string },
  shards = 1,
) {
  for (let shard = 0; shard < shards; shard++) {
    await runInDurableObject(roomStub(liveEnv, roomId, shard), (instance: LiveRoom) => {
      instance.redisBindings = {
        UPSTASH_REDIS_REST_URL: bindings.UPSTASH_REDIS_REST_URL,
        UPSTASH_REDIS_REST_TOKEN: bindings.UPSTASH_REDIS_REST_TOKEN,
        UPSTASH_REDIS_DATABASES: bindings.UPSTASH_REDIS_DATABASES,
      };
    });
  }
}
