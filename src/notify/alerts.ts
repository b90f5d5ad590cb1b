import { z } from "@hono/zod-openapi";

/**
 * What a write that may notify carries from the calling service (`alert`), and the plain text used
 * when it carries none. The kinds are the sources of pushes; each has its default text, urgency
 * and batch window (docs/notifications.md).
 */

export const NOTIFY_KINDS = ["notification", "dm", "inbox", "stream", "author", "broadcast"] as const;
export type NotifyKind = (typeof NOTIFY_KINDS)[number];

/** Field limits: a push payload must fit 4 KB (Web Push) after encryption, with room for the badge and data. */
export const ALERT_LIMITS = { title: 100, body: 500, url: 1000, thread: 200 } as const;

export const AlertSchema = z
  .object({
    title: z.string().min(1).max(ALERT_LIMITS.title).optional(),
    body: z.string().max(ALERT_LIMITS.body).optional(),
    url: z.string().max(ALERT_LIMITS.url).optional(),
    // A leading "~" is reserved for the windows notify keeps itself (the read window, `~read`), which share the threads' keys.
    thread: z.string().min(1).max(ALERT_LIMITS.thread).refine((t) => !t.startsWith("~"), "must not start with ~ (reserved)").optional(),
  })
  .strict()
  .openapi("PushAlert", {
    description: `What a push for this write shows on a closed app (title ≤ ${ALERT_LIMITS.title}, body ≤ ${ALERT_LIMITS.body}, url ≤ ${ALERT_LIMITS.url}, thread ≤ ${ALERT_LIMITS.thread} characters, not starting with "~"). Without it, or for the fields it leaves out, a plain default per kind is used ("New message"; an inbox message's or a broadcast's own title and body); \`thread\` groups and collapses pushes (default per kind and target).`,
    example: { title: "Ada", body: "lunch?", url: "/dms/7", thread: "dm:7" },
  });
export type Alert = z.infer<typeof AlertSchema>;

/**
 * The `alert` a post may carry (`POST /v1/posts`). It is the author's own text on their choosers'
 * screens, so its `url` must be a path of the app (`/posts/9`), never another site.
 */
export const PostAlertSchema = AlertSchema.extend({
  url: z
    .string()
    .max(ALERT_LIMITS.url)
    .regex(/^\/(?!\/)/, "must be a path of the app, starting with one /")
    .optional(),
}).openapi("PostPushAlert", {
  description: `What the push to the users who chose this author shows (title ≤ ${ALERT_LIMITS.title}, body ≤ ${ALERT_LIMITS.body}, url a path of the app ≤ ${ALERT_LIMITS.url}, thread ≤ ${ALERT_LIMITS.thread} characters). Without it: "New post" and the start of the text. The thread is always the author's: \`author:{authorId}\`, or \`author:{authorId}:{thread}\`.`,
  example: { title: "Ada posted", body: "Live at 8 tonight", url: "/posts/9" },
});

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
