import { getBadges, type Badges } from "../badges/badges";
import { DEFAULT_CAP } from "../badges/shared";
import type { Services } from "../lib/services";

/**
 * The number on the app's icon: the user's unread total at the time of sending, read by the same
 * script `GET /v1/me/badges` runs (one EVALSHA on the user's database) and summed over the kinds
 * that are things to read — notifications, direct messages, inbox messages, stream (group chat)
 * items and broadcasts — at the same cap (`DEFAULT_CAP`, 99: an icon shows "99" past it). New posts
 * of followed authors, the home feed and red dots are news, not unread items: no icon counts them.
 * The icon is set to this number, never incremented.
 */
export const ICON_BADGE_CAP = DEFAULT_CAP;

export function iconTotal(badges: Badges): number {
  const sum = badges.notifications.total.count + badges.dms.count + badges.inbox.total.count + badges.streams.total.count + badges.broadcasts.count;
  return Math.min(sum, badges.cap);
}

export async function unreadTotal(services: Services, userId: string): Promise<number> {
  return iconTotal(await getBadges(services, userId, ICON_BADGE_CAP));
}
