import { createRoute, z } from "@hono/zod-openapi";
import { IdempotencyKeyHeaders } from "../lib/idempotency";
import { authenticate } from "../lib/auth";
import { IdSchema, idParam } from "../lib/ids";
import { bearerAuth, errorResponses, jsonBody, jsonContent, newRouter } from "../lib/openapi";
import { CursorQuery, LimitQuery, PaginationQuery, pageSchema } from "../lib/pagination";
import { rateLimit } from "../lib/rate-limit";
import { AlertSchema } from "../lib/wire/alert";
import { activeRecord } from "./active";
import { announce } from "./announce";
import { listUnreadAuthors, seeAuthor } from "./authors";
import { getBadges } from "./badges";
import { liveBadgeRoutes, pushChangedOnline, pushing, pushingTally, pushStamp } from "./live";
import { createBroadcast, listBroadcasts, readBroadcasts } from "./broadcasts";
import { addDirectMessages, getDirectMessages, MAX_DM_COUNT, readDirectMessages } from "./dms";
import { listMessages, MAX_RECIPIENTS, MessageTypeSchema, readAllMessages, readMessage, sendMessage } from "./inbox";
import { addNotifications, getNotifications, MAX_NOTIFICATION_COUNT, NOTIFICATION_TYPES, readAllNotifications, readNotificationType } from "./notifications";
import { ChannelSchema, getRedDots, refreshChannel, seeChannel } from "./reddots";
import { MAX_BROADCAST_BODY, MAX_BROADCAST_TITLE, MAX_MESSAGE_CONTENT, MAX_MESSAGE_TITLE } from "./schema";
import { CapQuery, CappedSchema, degradable, MAX_CAP } from "./shared";
import { safetyCheck } from "../safety/cache";
import { addStreamItem, DEFAULT_STREAM_CAP, joinStream, leaveStream, listStreamUnread, pushStreamItem, readStream, StreamKindSchema } from "./streams";

const user = { security: bearerAuth, middleware: [authenticate()] };
const userWrite = { security: bearerAuth, middleware: [authenticate(), rateLimit()] };
const asRole = (role: "service" | "admin") => ({ security: bearerAuth, middleware: [authenticate({ roles: [role] }), rateLimit()] });
const ReadDegraded = z.boolean().describe("true when Redis was unavailable: zeros, or what Postgres knows");
const Degraded = z.boolean().describe("true when Redis was unavailable: Postgres kept the change, the cache is repaired later");

const NotificationTypeSchema = z.enum(NOTIFICATION_TYPES);
const Suppressed = z.enum(["blocked", "muted", "suspended"]).describe("Why nothing was counted or pushed: the user blocked the sender (or the sender the user), mutes the sender's notifications, or the sender is suspended");
const CountMap = z.record(z.string(), z.number().int()).openapi({ example: { reply: 3 } });
const CappedMap = z.record(z.string(), CappedSchema).openapi({ example: { reply: { count: 3, capped: false } } });

// ── Notifications ────────────────────────────────────────────────────────────
const notificationRoutes = newRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/users/{id}/notifications",
      tags: ["Badges: notifications"],
      summary: "Add notifications of one type for a user (type and total in one atomic step)",
      ...asRole("service"),
      request: {
        params: z.object({ id: idParam("id") }),
        headers: IdempotencyKeyHeaders,
        ...jsonBody(z.object({ type: NotificationTypeSchema, count: z.number().int().min(1).max(MAX_NOTIFICATION_COUNT).default(1), alert: AlertSchema.optional(), from: IdSchema.optional().openapi({ description: "Who caused it (a mention's author): the user's mention policy is checked against it; without it a policy other than `everyone` sends no push" }) }).openapi("NewNotifications")),
      },
      responses: {
        200: jsonContent(
          z.object({ userId: IdSchema, type: z.string(), count: z.number().int(), total: z.number().int(), applied: z.boolean(), suppressed: Suppressed.optional() }),
          "Counts after the call; `applied` is false for a repeated Idempotency-Key, and when `suppressed` says why nothing was counted or pushed",
        ),
        ...errorResponses("bad_request", "unauthorized", "forbidden", "rate_limited", "unavailable"),
      },
    }),
    async (c) => {
      const { type, count, alert, from } = c.req.valid("json");
      const userId = c.req.valid("param").id;
      const safety = from ? await safetyCheck(c.var.services, userId, from) : undefined;
      const added = await addNotifications(c.var.services.redisFor(userId), userId, type, count, c.req.valid("header")["idempotency-key"], safety);
      // Suppressed (a block or mute between them, or a suspended sender): nothing changed, nothing to tell any device.
      if (added.suppressed) return c.json(added, 200);
      // A repeated Idempotency-Key pushes nothing again.
      const push = added.applied ? (online: boolean) => announce(c.var.services, { type: "badges.notified", userId, notificationType: type, alert, from, online }) : undefined;
      return c.json(pushingTally(c.var.services, userId, { kind: "notifications", key: type, count: added.count, total: added.total }, added, push), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/me/notifications",
      tags: ["Badges: notifications"],
      summary: "Unread notifications by type and in total (uncapped)",
      ...user,
      responses: { 200: jsonContent(z.object({ byType: CountMap, total: z.number().int(), degraded: ReadDegraded }), "Counts"), ...errorResponses("unauthorized") },
    }),
    async (c) => c.json(await degradable(() => getNotifications(c.var.services.redisFor(c.var.caller.userId), c.var.caller.userId), () => ({ byType: {}, total: 0 })), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/me/notifications/{type}/read",
      tags: ["Badges: notifications"],
      summary: "Mark one type read (the total drops by exactly its count)",
      ...userWrite,
      request: { params: z.object({ type: NotificationTypeSchema.openapi({ param: { name: "type", in: "path" } }) }) },
      responses: { 200: jsonContent(z.object({ type: z.string(), cleared: z.number().int(), total: z.number().int() }), "What was cleared"), ...errorResponses("bad_request", "unauthorized", "rate_limited", "unavailable") },
    }),
    async (c) => {
      const read = await readNotificationType(c.var.services.redisFor(c.var.caller.userId), c.var.caller.userId, c.req.valid("param").type, activeRecord(c.var.services.env, c.var.caller.userId));
      return c.json(pushingTally(c.var.services, c.var.caller.userId, { kind: "notifications", key: read.type, count: 0, total: read.total }, read, () => announce(c.var.services, { type: "badges.read", userId: c.var.caller.userId })), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/me/notifications/read",
      tags: ["Badges: notifications"],
      summary: "Mark every notification read",
      ...userWrite,
      responses: { 200: jsonContent(z.object({ cleared: z.number().int(), total: z.number().int() }), "What was cleared"), ...errorResponses("unauthorized", "rate_limited", "unavailable") },
    }),
    async (c) => {
      const read = await readAllNotifications(c.var.services.redisFor(c.var.caller.userId), c.var.caller.userId, activeRecord(c.var.services.env, c.var.caller.userId));
      return c.json(pushingTally(c.var.services, c.var.caller.userId, { kind: "notifications", all: true, total: read.total }, read, () => announce(c.var.services, { type: "badges.read", userId: c.var.caller.userId })), 200);
    },
  );

// ── Broadcasts ───────────────────────────────────────────────────────────────
const BroadcastSchema = z.object({ id: IdSchema, title: z.string(), body: z.string(), createdAt: z.string().datetime() });
const broadcastRoutes = newRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/broadcasts",
      tags: ["Badges: broadcasts"],
      summary: "Publish a system broadcast (nothing is written per user)",
      ...asRole("admin"),
      request: jsonBody(
        z.object({
          title: z.string().trim().min(1).max(MAX_BROADCAST_TITLE),
          body: z.string().trim().min(1).max(MAX_BROADCAST_BODY),
          push: z.boolean().default(false).describe("Also a push notification to every user with a device (not online, preferences allowing), paged through the queue at a bounded rate"),
          alert: AlertSchema.optional(),
        }).openapi("NewBroadcast"),
      ),
      responses: { 201: jsonContent(BroadcastSchema.extend({ degraded: Degraded }).openapi("Broadcast"), "The broadcast"), ...errorResponses("bad_request", "unauthorized", "forbidden", "rate_limited", "unavailable") },
    }),
    async (c) => {
      const { title, body, push, alert } = c.req.valid("json");
      // Taken before the write: a badge read that counts the broadcast ended after it.
      const writtenAt = Date.now();
      const broadcast = await createBroadcast(c.var.services, title, body);
      // Read diffusion: one call per hub shard moves every online user's count; nothing per user.
      if (!broadcast.degraded) c.var.services.waitUntil(pushStamp(c.env, { kind: "broadcasts", writtenAt }));
      if (push) c.var.services.waitUntil(announce(c.var.services, { type: "badges.broadcast-sent", broadcastId: broadcast.id, title, body, alert }));
      return c.json(broadcast, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/me/broadcasts",
      tags: ["Badges: broadcasts"],
      summary: "Broadcasts newest first with a read flag, and the unread count",
      ...user,
      request: { query: PaginationQuery },
      responses: {
        200: jsonContent(
          z.object({ unread: z.number().int(), lastReadId: z.string(), degraded: ReadDegraded, items: z.array(BroadcastSchema.extend({ read: z.boolean() })), nextCursor: z.string().nullable() }).openapi("BroadcastsPage"),
          "One page",
        ),
        ...errorResponses("bad_request", "unauthorized", "unavailable"),
      },
    }),
    async (c) => c.json(await listBroadcasts(c.var.services, c.var.caller.userId, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/me/broadcasts/read",
      tags: ["Badges: broadcasts"],
      summary: "Move the last-read marker up to `upTo` (default: newest); never backwards",
      ...userWrite,
      request: { body: { content: { "application/json": { schema: z.object({ upTo: IdSchema.optional() }).openapi("ReadBroadcasts") } }, required: false } },
      responses: { 200: jsonContent(z.object({ lastReadId: z.string(), degraded: Degraded }), "The marker after the call"), ...errorResponses("bad_request", "unauthorized", "rate_limited", "unavailable") },
    }),
    // Broadcasts are on the icon: the user's APNs and FCM devices get the lower number (badge-only).
    async (c) => c.json(pushing(c.var.services, [c.var.caller.userId], await readBroadcasts(c.var.services, c.var.caller.userId, (c.req.valid("json") ?? {}).upTo), undefined, () => announce(c.var.services, { type: "badges.read", userId: c.var.caller.userId })), 200),
  );

// ── Red dots ─────────────────────────────────────────────────────────────────
const reddotRoutes = newRouter()
  .openapi(
    createRoute({
      method: "put",
      path: "/v1/reddots/{channel}",
      tags: ["Badges: red dots"],
      summary: "Stamp a channel as refreshed now (creates it; at most 200 channels)",
      ...asRole("admin"),
      request: { params: z.object({ channel: ChannelSchema }) },
      responses: { 200: jsonContent(z.object({ channel: z.string(), refreshedAt: z.string() }), "Stamped"), ...errorResponses("bad_request", "unauthorized", "forbidden", "conflict", "rate_limited", "unavailable") },
    }),
    async (c) => {
      const { channel } = c.req.valid("param");
      const writtenAt = Date.now(); // before the write, as for a broadcast
      const stamped = await refreshChannel(c.var.services, channel);
      c.var.services.waitUntil(pushStamp(c.env, { kind: "reddots", channel, writtenAt }));
      return c.json(stamped, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/me/reddots/{channel}/seen",
      tags: ["Badges: red dots"],
      summary: "Stamp the caller as having seen a channel now",
      ...userWrite,
      request: { params: z.object({ channel: ChannelSchema }) },
      responses: { 200: jsonContent(z.object({ channel: z.string(), seenAt: z.string() }), "Stamped"), ...errorResponses("bad_request", "unauthorized", "not_found", "rate_limited", "unavailable") },
    }),
    async (c) => c.json(pushing(c.var.services, [c.var.caller.userId], await seeChannel(c.var.services.redisFor(c.var.caller.userId), c.var.caller.userId, c.req.valid("param").channel, activeRecord(c.var.services.env, c.var.caller.userId))), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/me/reddots",
      tags: ["Badges: red dots"],
      summary: "Whether each channel shows a dot for the caller",
      ...user,
      responses: { 200: jsonContent(z.object({ dots: z.record(z.string(), z.boolean()), degraded: ReadDegraded }), "Dots"), ...errorResponses("unauthorized") },
    }),
    async (c) => c.json(await degradable(async () => ({ dots: await getRedDots(c.var.services.redisFor(c.var.caller.userId), c.var.caller.userId) }), () => ({ dots: {} })), 200),
  );

// ── Authors ──────────────────────────────────────────────────────────────────
const authorRoutes = newRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/me/unread/authors",
      tags: ["Badges: authors"],
      summary: "New posts per followed author, largest first",
      ...user,
      request: { query: PaginationQuery },
      responses: {
        200: jsonContent(
          z.object({ total: z.number().int(), items: z.array(z.object({ authorId: IdSchema, unread: z.number().int() })), nextCursor: z.string().nullable(), degraded: ReadDegraded }).openapi("UnreadAuthorsPage"),
          "One page and the total over every followed author",
        ),
        ...errorResponses("bad_request", "unauthorized"),
      },
    }),
    async (c) =>
      c.json(await degradable(() => listUnreadAuthors(c.var.services, c.var.caller.userId, c.req.valid("query")), () => ({ total: 0, items: [], nextCursor: null })), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/me/authors/{id}/seen",
      tags: ["Badges: authors"],
      summary: "Catch up on one followed author",
      ...userWrite,
      request: { params: z.object({ id: idParam("id") }) },
      responses: { 200: jsonContent(z.object({ authorId: IdSchema, unread: z.number().int() }), "Caught up"), ...errorResponses("bad_request", "unauthorized", "not_found", "rate_limited", "unavailable") },
    }),
    async (c) => c.json(pushing(c.var.services, [c.var.caller.userId], await seeAuthor(c.var.services, c.var.caller.userId, c.req.valid("param").id)), 200),
  );

// ── Streams ──────────────────────────────────────────────────────────────────
const StreamParams = z.object({ kind: StreamKindSchema, id: idParam("id") });
const MemberChange = z.object({ stream: z.string(), userId: IdSchema, member: z.boolean(), changed: z.boolean(), degraded: Degraded });
const memberRoute = (method: "put" | "delete") =>
  createRoute({
    method,
    path: "/v1/streams/{kind}/{id}/members/{userId}",
    tags: ["Badges: streams"],
    summary: method === "put" ? "Add a member (their unread starts now); idempotent" : "Remove a member; idempotent",
    ...asRole("service"),
    request: { params: StreamParams.extend({ userId: idParam("userId") }) },
    responses: { 200: jsonContent(MemberChange, "Membership after the call"), ...errorResponses("bad_request", "unauthorized", "forbidden", "rate_limited", "unavailable") },
  });
const streamRoutes = newRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/streams/{kind}/{id}/items",
      tags: ["Badges: streams"],
      summary: "Record that an item was posted in a stream (keeps the newest `cap` timestamps)",
      ...asRole("service"),
      request: {
        params: StreamParams,
        ...jsonBody(
          z.object({
            at: z.number().int().min(0).max(8.64e15).optional().describe("Item time in ms since the epoch; default now"),
            itemId: IdSchema.optional().describe("Item id: repeating it records the item once"),
            cap: z.number().int().min(1).max(MAX_CAP).default(DEFAULT_STREAM_CAP),
            alert: AlertSchema.optional(),
            from: IdSchema.optional().describe("The item's author: every other member not online gets a push"),
          }).openapi("NewStreamItem"),
        ),
      },
      responses: { 200: jsonContent(z.object({ stream: z.string(), kept: z.number().int() }), "Recorded"), ...errorResponses("bad_request", "unauthorized", "forbidden", "rate_limited", "unavailable") },
    }),
    async (c) => {
      const { kind, id } = c.req.valid("param");
      const body = c.req.valid("json");
      const added = await addStreamItem(c.var.services, kind, id, { at: body.at ?? Date.now(), itemId: body.itemId, cap: body.cap });
      c.var.services.waitUntil(
        pushStreamItem(c.var.services, kind, id, async (users) => {
          const online = await pushChangedOnline(c.var.services.env, users);
          await announce(c.var.services, { type: "badges.stream-item", streamKind: kind, streamId: id, userIds: users, online: [...online], from: body.from, alert: body.alert });
        }),
      );
      return c.json(added, 200);
    },
  )
  .openapi(memberRoute("put"), async (c) => {
    const { kind, id, userId } = c.req.valid("param");
    return c.json(pushing(c.var.services, [userId], await joinStream(c.var.services, userId, kind, id)), 200);
  })
  .openapi(memberRoute("delete"), async (c) => {
    const { kind, id, userId } = c.req.valid("param");
    return c.json(pushing(c.var.services, [userId], await leaveStream(c.var.services, userId, kind, id)), 200);
  })
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/me/streams/{kind}/{id}/read",
      tags: ["Badges: streams"],
      summary: "Stamp the caller's last access to a stream now (auto mark on open)",
      ...userWrite,
      request: { params: StreamParams },
      responses: { 200: jsonContent(z.object({ stream: z.string(), lastAccessAt: z.string(), degraded: Degraded }), "Stamped"), ...errorResponses("bad_request", "unauthorized", "rate_limited", "unavailable") },
    }),
    async (c) => {
      const { kind, id } = c.req.valid("param");
      // Stream items are on the icon: the user's APNs and FCM devices get the lower number (badge-only).
      return c.json(pushing(c.var.services, [c.var.caller.userId], await readStream(c.var.services, c.var.caller.userId, kind, id), undefined, () => announce(c.var.services, { type: "badges.read", userId: c.var.caller.userId })), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/me/streams",
      tags: ["Badges: streams"],
      summary: "Unread per stream (streams with news only) and the total; counting stops past `cap`",
      ...user,
      request: { query: z.object({ cap: CapQuery }) },
      responses: { 200: jsonContent(z.object({ total: z.number().int(), byStream: CountMap, degraded: ReadDegraded }), "Unread"), ...errorResponses("bad_request", "unauthorized") },
    }),
    async (c) => c.json(await degradable(() => listStreamUnread(c.var.services, c.var.caller.userId, c.req.valid("query").cap), () => ({ total: 0, byStream: {} })), 200),
  );

// ── Direct messages ──────────────────────────────────────────────────────────
const dmRoutes = newRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/dms/{toUserId}",
      tags: ["Badges: direct messages"],
      summary: "Count new direct messages from a peer (peer and total in one atomic step)",
      ...asRole("service"),
      request: {
        params: z.object({ toUserId: idParam("toUserId") }),
        ...jsonBody(z.object({ from: IdSchema, count: z.number().int().min(1).max(MAX_DM_COUNT).default(1), alert: AlertSchema.optional() }).openapi("NewDirectMessages")),
      },
      responses: {
        200: jsonContent(
          z.object({ userId: IdSchema, peerId: IdSchema, count: z.number().int(), total: z.number().int(), applied: z.boolean(), suppressed: Suppressed.optional() }),
          "Counts after the call; `applied: false, suppressed: \"muted\"` when the recipient mutes the sender's notifications, `\"suspended\"` when the sender is suspended (accepted, neither counted nor pushed)",
        ),
        ...errorResponses("bad_request", "unauthorized", "forbidden", "blocked", "rate_limited", "unavailable"),
      },
    }),
    async (c) => {
      const { from, count, alert } = c.req.valid("json");
      const { toUserId } = c.req.valid("param");
      const added = await addDirectMessages(c.var.services.redisFor(toUserId), toUserId, from, count, await safetyCheck(c.var.services, toUserId, from));
      if (!added.applied) return c.json(added, 200);
      const push = (online: boolean) => announce(c.var.services, { type: "badges.dm", userId: toUserId, from, alert, online });
      return c.json(pushingTally(c.var.services, toUserId, { kind: "dms", total: added.total }, added, push), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/me/dms/{peerId}/read",
      tags: ["Badges: direct messages"],
      summary: "Mark the messages from one peer read",
      ...userWrite,
      request: { params: z.object({ peerId: idParam("peerId") }) },
      responses: { 200: jsonContent(z.object({ peerId: IdSchema, cleared: z.number().int(), total: z.number().int() }), "What was cleared"), ...errorResponses("bad_request", "unauthorized", "rate_limited", "unavailable") },
    }),
    async (c) => {
      const read = await readDirectMessages(c.var.services.redisFor(c.var.caller.userId), c.var.caller.userId, c.req.valid("param").peerId, activeRecord(c.var.services.env, c.var.caller.userId));
      return c.json(pushingTally(c.var.services, c.var.caller.userId, { kind: "dms", total: read.total }, read, () => announce(c.var.services, { type: "badges.read", userId: c.var.caller.userId })), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/me/dms",
      tags: ["Badges: direct messages"],
      summary: "Unread direct messages by peer and in total",
      ...user,
      responses: { 200: jsonContent(z.object({ byPeer: CountMap, total: z.number().int(), degraded: ReadDegraded }), "Counts"), ...errorResponses("unauthorized") },
    }),
    async (c) => c.json(await degradable(() => getDirectMessages(c.var.services.redisFor(c.var.caller.userId), c.var.caller.userId), () => ({ byPeer: {}, total: 0 })), 200),
  );

// ── Inbox ────────────────────────────────────────────────────────────────────
const InboxMessageSchema = z.object({ id: IdSchema, type: z.string(), title: z.string(), content: z.string(), createdAt: z.string().datetime(), read: z.boolean() }).openapi("InboxMessage");
const TypeQuery = MessageTypeSchema.optional().openapi({ param: { name: "type", in: "query" } });
const inboxRoutes = newRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/messages",
      tags: ["Badges: inbox"],
      summary: "Send one inbox message to up to 1,000 users",
      ...asRole("service"),
      request: jsonBody(
        z.object({
          to: z.array(IdSchema).min(1).max(MAX_RECIPIENTS),
          type: MessageTypeSchema,
          title: z.string().trim().min(1).max(MAX_MESSAGE_TITLE),
          content: z.string().min(1).max(MAX_MESSAGE_CONTENT),
          alert: AlertSchema.optional(),
        }).openapi("NewInboxMessage"),
      ),
      responses: { 201: jsonContent(z.object({ id: IdSchema, recipients: z.number().int(), degraded: Degraded }), "Stored"), ...errorResponses("bad_request", "unauthorized", "forbidden", "rate_limited", "unavailable") },
    }),
    async (c) => {
      const { alert, ...message } = c.req.valid("json");
      const sent = await sendMessage(c.var.services, message);
      const push = (online: Set<string>) => announce(c.var.services, { type: "badges.inbox-sent", messageId: sent.id, title: message.title, userIds: message.to, online: [...online], alert });
      return c.json(pushing(c.var.services, message.to, sent, undefined, push), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/me/messages",
      tags: ["Badges: inbox"],
      summary: "The caller's inbox, newest first",
      ...user,
      request: {
        query: z.object({
          type: TypeQuery,
          unread: z.enum(["true", "false"]).optional().transform((v) => (v === undefined ? undefined : v === "true")).openapi({ param: { name: "unread", in: "query" } }),
          limit: LimitQuery,
          cursor: CursorQuery,
        }),
      },
      responses: { 200: jsonContent(pageSchema(InboxMessageSchema, "InboxPage"), "One page"), ...errorResponses("bad_request", "unauthorized", "unavailable") },
    }),
    async (c) => c.json(await listMessages(c.var.services, c.var.caller.userId, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/me/messages/read",
      tags: ["Badges: inbox"],
      summary: "Mark every unread message (of one type) read; idempotent",
      ...userWrite,
      request: { query: z.object({ type: TypeQuery }) },
      responses: { 200: jsonContent(z.object({ marked: z.number().int(), degraded: Degraded }), "How many turned read"), ...errorResponses("bad_request", "unauthorized", "rate_limited", "unavailable") },
    }),
    async (c) => c.json(pushing(c.var.services, [c.var.caller.userId], await readAllMessages(c.var.services, c.var.caller.userId, c.req.valid("query").type), undefined, () => announce(c.var.services, { type: "badges.read", userId: c.var.caller.userId })), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/me/messages/{id}/read",
      tags: ["Badges: inbox"],
      summary: "Mark one message read; idempotent",
      ...userWrite,
      request: { params: z.object({ id: idParam("id") }) },
      responses: { 200: jsonContent(z.object({ id: IdSchema, read: z.boolean(), changed: z.boolean(), degraded: Degraded }), "Read"), ...errorResponses("bad_request", "unauthorized", "not_found", "rate_limited", "unavailable") },
    }),
    async (c) => c.json(pushing(c.var.services, [c.var.caller.userId], await readMessage(c.var.services, c.var.caller.userId, c.req.valid("param").id), undefined, () => announce(c.var.services, { type: "badges.read", userId: c.var.caller.userId })), 200),
  );

// ── Home screen ──────────────────────────────────────────────────────────────
const BadgesSchema = z
  .object({
    cap: z.number().int(),
    degraded: z.boolean().describe("true when Redis was unavailable: zeros, or Postgres-backed values (broadcasts, inbox)"),
    notifications: z.object({ byType: CappedMap, total: CappedSchema }),
    broadcasts: CappedSchema,
    reddots: z.record(z.string(), z.boolean()),
    authors: CappedSchema,
    streams: z.object({ total: CappedSchema, byStream: CappedMap.describe("Streams with unread items; once the total passes `cap` the remaining streams are not counted") }),
    dms: CappedSchema,
    inbox: z.object({ byType: CappedMap, total: CappedSchema }),
    feed: CappedSchema.describe("Posts newer than the last read of the home feed's first page (GET /v1/me/feed without cursor), as that page shows them: the timeline and the big accounts followed"),
  })
  .openapi("Badges");
const homeRoutes = newRouter().openapi(
  createRoute({
    method: "get",
    path: "/v1/me/badges",
    tags: ["Badges"],
    summary: "Every badge of the home screen in one Redis round trip, each capped",
    ...user,
    request: { query: z.object({ cap: CapQuery }) },
    responses: { 200: jsonContent(BadgesSchema, "Badges (200 with `degraded` when Redis is down)"), ...errorResponses("bad_request", "unauthorized") },
  }),
  async (c) => c.json(await getBadges(c.var.services, c.var.caller.userId, c.req.valid("query").cap), 200),
);

export const badgesRoutes = newRouter()
  .route("/", notificationRoutes)
  .route("/", broadcastRoutes)
  .route("/", reddotRoutes)
  .route("/", authorRoutes)
  .route("/", streamRoutes)
  .route("/", dmRoutes)
  .route("/", inboxRoutes)
  .route("/", homeRoutes)
  .route("/", liveBadgeRoutes);
