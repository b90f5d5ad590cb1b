import { createRoute, z } from "@hono/zod-openapi";
import { authenticate } from "../lib/auth";
import { IdSchema, idParam } from "../lib/ids";
import { bearerAuth, errorResponses, jsonBody, jsonContent, newRouter } from "../lib/openapi";
import { pageSchema, PaginationQuery } from "../lib/pagination";
import { DEAD_LETTER_SOURCES, discardDeadLetter, listDeadLetters, MAX_REPLAY, replayDeadLetters } from "./dead-letters";
import { HISTORY_POINTS, HISTORY_STEP_MS } from "../lib/ops/keys";
import { readStatusHistory } from "./history";
import { readStatus } from "./status";

const ms = (description: string) => z.number().int().nullable().openapi({ description });
const count = (description: string) => z.number().int().nullable().openapi({ description });
const when = (description: string) => z.string().nullable().openapi({ description, format: "date-time" });

const DependencySchema = z.object({
  name: z.string().openapi({ description: "`postgres`; for Redis `default` (the one database of a single-database deployment) or `db0` … `db{N-1}` (UPSTASH_REDIS_DATABASES, in its order)" }),
  ok: z.boolean().openapi({ description: "The probe and the status read both answered" }),
  latencyMs: z.number().int().openapi({ description: "Round trip of one cheap call: PING (Redis), SELECT 1 (Postgres)" }),
  error: z.string().optional(),
});

const RedisDependencySchema = DependencySchema.extend({
  index: z.number().int().openapi({ description: "The database's index in the setting (0 … N − 1; database 0 also holds the operations keys)" }),
});

const OldestBatchSchema = z.object({ batch: z.string(), cutAt: when("Field `@cut` of the batch hash, written by the cut") });

const QueueCounts = z.record(z.string(), z.number().int());

export const StatusSchema = z
  .object({
    at: z.string().openapi({ description: "When this answer was read (the Worker's clock)", format: "date-time" }),
    dependencies: z.object({
      redis: z
        .array(RedisDependencySchema)
        .openapi({ description: "One entry per Redis database (Upstash REST), in index order: PING, timed, then its status script; one down or past its command budget is `ok: false` and the others still show" }),
      postgres: DependencySchema.openapi({ description: "Postgres through the Neon driver: SELECT 1, timed" }),
    }),
    counters: z.object({
      pendingFields: count("Counter fields with deltas since the last cut: HLEN of Redis `ctr:pending`, summed over the databases that answered (null when none did)"),
      unappliedBatches: count("Cut batches not yet applied to Postgres: ZCARD of Redis `ctr:batches`, summed over the databases that answered"),
      oldestUnappliedBatch: OldestBatchSchema.extend({ database: z.number().int().openapi({ description: "The database it waits on" }) })
        .nullable()
        .openapi({ description: "The unapplied batch with the worst lag over all databases: lowest number in its database's `ctr:batches`, and when the flush cut it" }),
      flushLagMs: ms("The worst flush lag over the databases that answered: age of the oldest unapplied batch (now − its `@cut`); 0 when none waits. The flush runs every minute: normal is 0 or under 60 000"),
      databases: z
        .array(
          z.object({
            index: z.number().int(),
            ok: z.boolean().openapi({ description: "Its PING and status script answered (as `dependencies.redis`); its figures are null otherwise" }),
            pendingFields: count("HLEN of this database's `ctr:pending`"),
            unappliedBatches: count("ZCARD of this database's `ctr:batches`"),
            oldestUnappliedBatch: OldestBatchSchema.nullable().openapi({ description: "Lowest number in this database's `ctr:batches` and when its flush cut it" }),
            flushLagMs: ms("Age of this database's oldest unapplied batch; 0 when none waits"),
          }),
        )
        .openapi({ description: "The same figures per Redis database, in index order: each has its own pending hash, batch numbers and cut (one status script call each)" }),
      lastFlush: z
        .object({
          at: z.string(),
          durationMs: z.number().int(),
          outcome: z.enum(["ok", "error"]),
          ageMs: z.number().int(),
          cut: z.number().int().nullable().optional(),
          batches: z.number().int().optional(),
          deltas: z.number().int().optional(),
          statements: z.number().int().optional(),
          remaining: z.number().int().optional(),
          error: z.string().optional(),
        })
        .nullable()
        .openapi({ description: "The last flush run, recorded by the flush cron in Redis `ops:runs` field `counters:flush` (batches applied, deltas merged into them, Postgres statements, batches left)" }),
      reconcile: z.object({
        running: z.boolean().openapi({ description: "A pass is running: Redis `ctr:reconcile:cursor` exists" }),
        position: z.object({ entity: z.string(), after: z.string() }).nullable().openapi({ description: "Where the running pass continues (the cursor)" }),
        startedAt: when("When the running pass started (the cursor)"),
        correctedSoFar: count("Counters the running pass corrected so far (the cursor)"),
        lastPass: z
          .object({ startedAt: z.string().nullable(), finishedAt: z.string(), corrected: z.number().int() })
          .nullable()
          .openapi({ description: "The last finished pass, recorded by the slice that finished it (`ops:runs` field `counters:reconcile`)" }),
      }),
    }),
    feed: z.object({
      deadLetters: QueueCounts.nullable().openapi({ description: "Dead letters waiting, per source queue: count of Postgres `dead_letters` by queue" }),
      deadLettersTotal: count("Their sum"),
      oldestDeadLetterAt: when("When the oldest waiting dead letter died (`dead_letters.died_at`)"),
      bigAccounts: z
        .object({ big: z.number().int(), toBig: z.number().int(), toNormal: z.number().int() })
        .nullable()
        .openapi({ description: "Accounts pulled instead of pushed, and those in transition: Postgres `feed_big_accounts` by state" }),
      fanouts: z
        .object({
          samples: z.number().int(),
          p50Ms: ms("Median publish → last page delivered"),
          p99Ms: ms("99th percentile"),
          maxMs: ms("Slowest"),
          lastAt: when("When the newest sample was recorded"),
        })
        .openapi({ description: "The last 100 fan-outs, publish → the last page (the author's oldest followers) in their timelines: Redis stream `ops:fanouts`, one XADD per completed fan-out" }),
    }),
    badgesPush: z
      .object({
        hubs: z.number().int().openapi({ description: "Badge hub shards (BADGE_HUB_SHARDS)" }),
        hubsAnswered: z.number().int(),
        hubsFailed: z.number().int(),
        socketsOpen: z.number().int().openapi({ description: "Live badge sockets: each hub's own count (`stats()`, one call per shard), summed" }),
        usersOnline: z.number().int().openapi({ description: "Distinct users with a socket, summed over hubs" }),
      })
      .openapi({ description: "The live badge hubs, each asked for its own figures" }),
    notify: z.object({
      broadcasts: z
        .array(
          z.object({
            id: IdSchema,
            state: z.enum(["running", "done"]).openapi({ description: "`done` once the last page ran and every queued device had its last verdict" }),
            devices: z
              .object({
                queued: z.number().int().openapi({ description: "Web Push and APNs devices (FCM too when there is no broadcast topic) of the users whose push a page queued" }),
                sent: z.number().int().openapi({ description: "Delivered" }),
                failed: z.number().int().openapi({ description: "Dead letters (refused, or out of attempts)" }),
                dropped: z.number().int().openapi({ description: "Gone (404/410, UNREGISTERED, Unregistered): deleted" }),
                pending: z.number().int().openapi({ description: "Queued and not settled yet (waiting, retrying, held by quiet hours)" }),
                retries: z.number().int(),
              })
              .openapi({ description: "Counted by the consumer as it carries each device's verdict out" }),
            users: z.object({ paged: z.number().int(), queued: z.number().int().openapi({ description: "Offline, preferences allowing, with a device of the paged kinds" }), total: z.number().int().nullable().openapi({ description: "Users with a device when the first page ran" }) }),
            pages: z.object({ done: z.number().int(), total: z.number().int().nullable().openapi({ description: "Roughly: from the users with a device when it started" }), cursor: z.string().nullable().openapi({ description: "The last user id paged" }) }),
            topic: z.object({ name: z.string(), sentAt: z.string().nullable(), error: z.string().nullable() }).nullable().openapi({ description: "The one FCM topic send, when FCM has a broadcast topic" }),
            startedAt: z.string().nullable(),
            pagedAt: z.string().nullable().openapi({ description: "When the last page ran (every push queued)" }),
            finishedAt: z.string().nullable(),
            lastAt: z.string().nullable(),
            devicesPerSecond: z.number().nullable().openapi({ description: "Devices settled per second, from the start to the last update" }),
          }),
        )
        .openapi({ description: "The newest push broadcasts (at most 5), newest first: Redis `ops:broadcasts` and each one's `ops:broadcast:{id}` (7 days), written by the notify-send consumer once per page and per queue batch" }),
    }),
    liveRooms: z.object({
      startedLast6h: count("Rooms whose last session started in the last 6 hours: Postgres `live_session_starts`, written at session start"),
      largest: z
        .array(z.object({ roomId: z.string(), viewers: z.number().int(), onlineFans: z.number().int() }))
        .openapi({ description: "The 10 largest live audiences, as the per-minute cron asked those rooms (`ops:runs` field `live:rooms`)" }),
      asOf: when("When the cron asked them"),
      asked: z.number().int().openapi({ description: "Rooms the cron asked (the 100 most recently started at most)" }),
      live: z.number().int().openapi({ description: "Of those, rooms with a live session" }),
    }),
    reports: z.object({
      open: count("Open reports waiting for an operator: Postgres `safety_reports` with status open (users' reports and posts the term filter held)"),
      oldestOpenAt: when("When the oldest open report was opened"),
      oldestOpenAgeMs: ms("Its age; 0 when none is open. The app stores expect action within 24 hours: amber past 12 h, red past 24 h"),
    }),
    cron: z
      .record(
        z.string(),
        z.object({
          schedule: z.string(),
          lastRun: z
            .object({
              startedAt: z.string(),
              durationMs: z.number().int(),
              outcome: z.enum(["ok", "error"]),
              tasks: z.array(z.object({ name: z.string(), ok: z.boolean(), durationMs: z.number().int(), error: z.string().optional() })),
            })
            .partial()
            .nullable(),
        }),
      )
      .openapi({ description: "Each cron job's last run, recorded by the job itself in Redis `ops:runs` field `cron:{job}` (one HSET per run)" }),
  })
  .openapi("OperationsStatus");

const StatusHistorySchema = z
  .object({
    minutes: z.number().int().openapi({ description: "The span asked for" }),
    stepMs: z.number().int().openapi({ description: "One point a minute", example: HISTORY_STEP_MS }),
    points: z
      .array(
        z.object({
          at: z.string().openapi({ description: "The point's minute (the flush cron run that sampled it)", format: "date-time" }),
          flushLagMs: ms("As `counters.flushLagMs` of the status, then (the worst database's)"),
          pendingFields: count("As `counters.pendingFields`, then (after that minute's flush: normally 0 or a few seconds' increments)"),
          unappliedBatches: count("As `counters.unappliedBatches`, then"),
          fanoutP99Ms: ms("As `feed.fanouts.p99Ms`, then (the last 100 fan-outs then)"),
          deadLetters: count("As `feed.deadLettersTotal`, then"),
        }),
      )
      .max(HISTORY_POINTS)
      .openapi({
        description: `Oldest first, at most one a minute and ${HISTORY_POINTS} (24 hours). A minute with no point: the cron did not run (or could not record); a null figure: its source did not answer then. Badge sockets are not sampled (that would wake every hub each minute).`,
      }),
  })
  .openapi("OperationsStatusHistory");

const QueueName = z.enum(DEAD_LETTER_SOURCES as [string, ...string[]]);

const DeadLetterSchema = z
  .object({
    id: IdSchema,
    queue: z.string().openapi({ example: "feed-fanout", description: "The queue it came from and is replayed to" }),
    body: z.unknown().openapi({ description: "The message as it was sent", example: { kind: "fanout", op: "add", postId: "42", authorId: "7", after: null } }),
    diedAt: z.string().openapi({ format: "date-time" }),
    lastError: z.string().nullable().openapi({ description: "The error of its last delivery attempt" }),
  })
  .openapi("DeadLetter");

const ReplaySchema = z
  .union([
    z.object({ ids: z.array(IdSchema).min(1).max(MAX_REPLAY).openapi({ description: `Dead letters to replay (at most ${MAX_REPLAY})` }) }).strict(),
    z.object({ queue: QueueName.openapi({ description: `Replay the oldest ${MAX_REPLAY} of this queue` }) }).strict(),
  ])
  .openapi("DeadLetterReplay", { example: { ids: ["12", "13"] } });

export const adminRoutes = newRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/admin/status",
      tags: ["Operations"],
      summary: "What the service is doing: dependencies, flush, fan-out, dead letters, sockets, push broadcasts, live rooms, cron (role admin)",
      description:
        "One answer from state that exists or that background jobs record once per run; reads no per-user key. Costs at most 9 billed Redis commands on database 0 (one script + PING), plus 1 + one per push broadcast shown (≤ 5), and 6 on each other database (its counter figures), 2 Postgres statements and one call per badge hub shard.",
      security: bearerAuth,
      middleware: [authenticate({ roles: ["admin"] })] as const,
      responses: {
        200: jsonContent(StatusSchema, "The figures; a dependency that did not answer has `ok: false` and its figures null"),
        ...errorResponses("unauthorized", "forbidden"),
      },
    }),
    async (c) => c.json((await readStatus(c.var.services)) as z.infer<typeof StatusSchema>, 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/admin/status/history",
      tags: ["Operations"],
      summary: "The status figures a minute apart over the last 24 hours, as the flush cron sampled them (role admin)",
      description: `What the console draws on open. Kept in Redis \`ops:history\` on database 0 (a sorted set of at most ${HISTORY_POINTS} points, written by the flush cron with its run record, expiring a day after the last). Costs one billed Redis command.`,
      security: bearerAuth,
      middleware: [authenticate({ roles: ["admin"] })] as const,
      request: {
        query: z.object({
          minutes: z.coerce
            .number()
            .int()
            .min(1)
            .max(HISTORY_POINTS)
            .default(HISTORY_POINTS)
            .openapi({ param: { name: "minutes", in: "query" }, description: `The last this many minutes (1 … ${HISTORY_POINTS}, all of them by default)`, example: 60 }),
        }),
      },
      responses: {
        200: jsonContent(StatusHistorySchema, "The points, oldest first"),
        ...errorResponses("bad_request", "unauthorized", "forbidden", "unavailable"),
      },
    }),
    async (c) => c.json(await readStatusHistory(c.var.services.redis, c.req.valid("query").minutes), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/admin/dead-letters",
      tags: ["Operations"],
      summary: "Dead letters waiting, newest first: the message, its queue, when it died, the last error (role admin)",
      security: bearerAuth,
      middleware: [authenticate({ roles: ["admin"] })] as const,
      request: { query: PaginationQuery.extend({ queue: QueueName.optional().openapi({ param: { name: "queue", in: "query" }, description: "Only this queue's" }) }) },
      responses: {
        200: jsonContent(pageSchema(DeadLetterSchema, "DeadLetterPage"), "A page of dead letters"),
        ...errorResponses("bad_request", "unauthorized", "forbidden", "unavailable"),
      },
    }),
    async (c) => {
      const { queue, limit, cursor } = c.req.valid("query");
      return c.json(await listDeadLetters(c.var.services.db, { queue: queue as never, limit, cursor }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/admin/dead-letters/replay",
      tags: ["Operations"],
      summary: "Send dead letters back to their queue (the listed ids, or the oldest 100 of a queue); each is removed once sent (role admin)",
      description: "Every feed message is idempotent, so replaying one twice changes nothing more. `more` says whether the queue still has dead letters waiting.",
      security: bearerAuth,
      middleware: [authenticate({ roles: ["admin"] })] as const,
      request: jsonBody(ReplaySchema),
      responses: {
        200: jsonContent(z.object({ replayed: z.number().int(), ids: z.array(IdSchema), more: z.boolean() }).openapi("DeadLetterReplayResult"), "What was sent"),
        ...errorResponses("bad_request", "unauthorized", "forbidden", "unavailable"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(await replayDeadLetters(c.var.services, "ids" in body ? { ids: body.ids } : { queue: body.queue as never }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/v1/admin/dead-letters/{id}",
      tags: ["Operations"],
      summary: "Discard one dead letter without sending it (role admin)",
      security: bearerAuth,
      middleware: [authenticate({ roles: ["admin"] })] as const,
      request: { params: z.object({ id: idParam("id") }) },
      responses: {
        200: jsonContent(z.object({ id: IdSchema, discarded: z.literal(true) }).openapi("DeadLetterDiscarded"), "Discarded"),
        ...errorResponses("bad_request", "unauthorized", "forbidden", "not_found", "unavailable"),
      },
    }),
    async (c) => c.json(await discardDeadLetter(c.var.services.db, c.req.valid("param").id), 200),
  );
