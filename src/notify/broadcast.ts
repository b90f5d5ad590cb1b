import { onlineAmong } from "../badges/live";
import { queryRows } from "../lib/db";
import type { BroadcastProgress } from "../lib/ops/record";
import type { Services } from "../lib/services";
import type { ResolvedAlert } from "./alerts";
import { pushConfig, type PushConfig } from "./config";
import { enqueueFor } from "./events";
import { enqueuePushes } from "./sends";
import type { BroadcastPageMessage, BroadcastTopicMessage, PushDeviceKind } from "./send-message";

/**
 * A broadcast with `"push": true`. Where the deployment uses FCM with a broadcast topic, ONE send
 * to the topic (a `broadcast-topic` message: topic.ts) reaches every subscribed FCM device. Web
 * Push and APNs devices (and FCM ones when there is no topic) are paged through the queue at a
 * bounded rate: BROADCAST_PAGE_SIZE users with a device per page, one page per
 * BROADCAST_PAGE_DELAY_SECONDS, so at most 1,000 users a second per broadcast whatever the
 * audience. Each page asks the hubs who is online (one read-free call per shard) and checks each
 * user's preferences before anything is queued. Each page and each push counts in the broadcast's
 * progress (`GET /v1/admin/status`).
 */
export const BROADCAST_PAGE_SIZE = 1000;
export const BROADCAST_PAGE_DELAY_SECONDS = 1;

/** The device kinds a broadcast pages: all of them, but FCM when its topic carries the broadcast. */
export function pagedKinds(config: PushConfig): PushDeviceKind[] | undefined {
  return config.fcm?.broadcastTopic ? ["webpush", "apns"] : undefined;
}

/** Queues the first page and, with an FCM broadcast topic, the topic send. */
export function startBroadcastPush(services: Pick<Services, "env">, broadcastId: string, alert: ResolvedAlert, now: number = Date.now()): Promise<void> {
  const topic = pushConfig(services.env).fcm?.broadcastTopic;
  const page: BroadcastPageMessage = { kind: "broadcast-page", broadcastId, alert, after: null, startedAt: now };
  const send: BroadcastTopicMessage[] = topic ? [{ kind: "broadcast-topic", broadcastId, alert, topic }] : [];
  return enqueuePushes(services.env, [...send, page].map((body) => ({ body })));
}

/**
 * One page: its users' pushes, then the next page (delayed). Returns what the broadcast's progress
 * gains (the first page also counts the users with a device: the pages to come, roughly).
 */
export async function expandBroadcastPage(services: Services, page: BroadcastPageMessage, config: PushConfig = pushConfig(services.env)): Promise<BroadcastProgress & { users: number }> {
  const first = page.after === null;
  const [rows, total] = await Promise.all([
    queryRows<{ user_id: string }>(
      services.db,
      `SELECT DISTINCT user_id::text AS user_id FROM notify_devices WHERE ($1::bigint IS NULL OR user_id > $1::bigint) ORDER BY 1 LIMIT ${BROADCAST_PAGE_SIZE}`,
      [page.after],
    ),
    first ? queryRows<{ n: number }>(services.db, `SELECT count(DISTINCT user_id)::int AS n FROM notify_devices`, []) : Promise.resolve(undefined),
  ]);
  const users = rows.map((r) => r.user_id);
  const more = users.length === BROADCAST_PAGE_SIZE;
  const progress = (add: BroadcastProgress["add"]): BroadcastProgress & { users: number } => ({
    id: page.broadcastId,
    users: users.length,
    ...(first && page.startedAt !== undefined ? { startedAt: page.startedAt } : {}),
    add: { pages: 1, usersPaged: users.length, ...add },
    set: {
      ...(total ? { usersTotal: total[0]?.n ?? 0 } : {}),
      ...(users.length > 0 ? { cursor: users[users.length - 1]! } : {}),
      ...(more ? {} : { pagedAt: Date.now() }),
    },
  });
  if (users.length === 0) return progress({});
  // Who is online, read-free: the broadcast's stamp already moved the open apps' counts.
  const online = await onlineAmong(services.env, users);
  const kinds = pagedKinds(config);
  const queued = await enqueueFor(services, users.filter((u) => !online.has(u)), {
    kind: "broadcast",
    alert: page.alert,
    thread: page.alert.thread,
    broadcastId: page.broadcastId,
    ...(kinds ? { deviceKinds: kinds } : {}),
  });
  if (more) {
    const { startedAt: _first, ...next } = page;
    await enqueuePushes(services.env, [{ body: { ...next, after: users[users.length - 1]! }, delaySeconds: BROADCAST_PAGE_DELAY_SECONDS }]);
  }
  return progress({ usersQueued: queued.users, queued: queued.devices });
}
