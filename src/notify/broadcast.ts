import { onlineAmong } from "../badges/live";
import { queryRows } from "../lib/db";
import type { Services } from "../lib/services";
import type { ResolvedAlert } from "./alerts";
import { enqueueFor } from "./events";
import { enqueuePushes } from "./sends";
import type { BroadcastPageMessage } from "./send-message";

/**
 * A broadcast with `"push": true`: every user with a device, paged through the queue at a bounded
 * rate (BROADCAST_PAGE_SIZE users per page, one page per BROADCAST_PAGE_DELAY_SECONDS: at most
 * 1,000 users a second per broadcast). Each page asks the hubs who is online (one read-free call per shard)
 * and checks each user's preferences before anything is queued. FCM topic messaging (one send for
 * every subscribed Android device) is a follow-up.
 */
export const BROADCAST_PAGE_SIZE = 1000;
export const BROADCAST_PAGE_DELAY_SECONDS = 1;

export function startBroadcastPush(services: Pick<Services, "env">, broadcastId: string, alert: ResolvedAlert): Promise<void> {
  return enqueuePushes(services.env, [{ body: { kind: "broadcast-page", broadcastId, alert, after: null } }]);
}

/** One page: its users' pushes, then the next page (delayed). Returns the users it covered. */
export async function expandBroadcastPage(services: Services, page: BroadcastPageMessage): Promise<number> {
  const rows = await queryRows<{ user_id: string }>(
    services.db,
    `SELECT DISTINCT user_id::text AS user_id FROM notify_devices WHERE ($1::bigint IS NULL OR user_id > $1::bigint) ORDER BY 1 LIMIT ${BROADCAST_PAGE_SIZE}`,
    [page.after],
  );
  const users = rows.map((r) => r.user_id);
  if (users.length === 0) return 0;
  // Who is online, read-free: the broadcast's stamp already moved the open apps' counts.
  const online = await onlineAmong(services.env, users);
  await enqueueFor(services, users.filter((u) => !online.has(u)), { kind: "broadcast", alert: page.alert, thread: page.alert.thread });
  if (users.length === BROADCAST_PAGE_SIZE) {
    await enqueuePushes(services.env, [{ body: { ...page, after: users[users.length - 1]! }, delaySeconds: BROADCAST_PAGE_DELAY_SECONDS }]);
  }
  return users.length;
}
