import type { Alert } from "../lib/wire/alert";

/**
 * The plain text a push shows where the write's `alert` (its wire shape: `src/lib/wire/alert.ts`)
 * leaves a field out. The kinds are the sources of pushes; each has its default text, urgency and
 * batch window (docs/notifications.md).
 */

export const NOTIFY_KINDS = ["notification", "dm", "inbox", "stream", "author", "broadcast"] as const;
export type NotifyKind = (typeof NOTIFY_KINDS)[number];

/** The alert as it is sent: every field but `url` filled in. */
export type ResolvedAlert = { title: string; body: string; url?: string; thread: string };

const DEFAULT_TITLES: Record<NotifyKind, string> = {
  notification: "New notification",
  dm: "New message",
  inbox: "New message",
  stream: "New message",
  author: "New post",
  broadcast: "Announcement",
};

/** The alert a push shows: the caller's fields, the kind's plain default for the rest. */
export function resolveAlert(kind: NotifyKind, alert: Alert | undefined, defaultThread: string): ResolvedAlert {
  return {
    title: alert?.title ?? DEFAULT_TITLES[kind],
    body: alert?.body ?? "",
    ...(alert?.url !== undefined ? { url: alert.url } : {}),
    thread: alert?.thread ?? defaultThread,
  };
}

/** `high` for direct messages and mentions (a notification of type `mention`), `normal` for the rest. */
export function urgencyOf(kind: NotifyKind, type?: string): "high" | "normal" {
  return kind === "dm" || (kind === "notification" && type === "mention") ? "high" : "normal";
}
