import { z } from "@hono/zod-openapi";
import { isAppPath } from "./app-path";

/**
 * The `alert` a write that may notify carries from the calling service: what a push for it shows on
 * a closed app. Its wire shape lives here, below the capabilities, because the routes that take it
 * (the badges' writes, `POST /v1/posts`) and notify, which resolves and sends it, both need it and
 * neither may import the other for it.
 */

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
    .refine(isAppPath, "must be a path of the app: one leading /, no backslash, control character or whitespace (encoded or not)")
    .optional()
    .openapi({ description: "A path of the app: one leading /, on the app's origin once resolved, no backslash, control character or whitespace (percent-encoded or not)", example: "/posts/9" }),
}).openapi("PostPushAlert", {
  description: `What the push to the users who chose this author shows (title ≤ ${ALERT_LIMITS.title}, body ≤ ${ALERT_LIMITS.body}, url a path of the app ≤ ${ALERT_LIMITS.url}, thread ≤ ${ALERT_LIMITS.thread} characters). Without it: "New post" and the start of the text. The thread is always the author's: \`author:{authorId}\`, or \`author:{authorId}:{thread}\`.`,
  example: { title: "Ada posted", body: "Live at 8 tonight", url: "/posts/9" },
});
