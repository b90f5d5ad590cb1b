import { sql } from "drizzle-orm";
import { CUT_AT_FIELD } from "../counters/cut.lua";
import { counterKeys } from "../counters/keys";
import { CRON_SCHEDULES, type CronJobName } from "../cron";
import { hubShards, hubStub } from "../badges/live";
import { settleEveryDatabase } from "../lib/redis-topology";
import { queryRows } from "../lib/db";
import type { Services } from "../lib/services";
import { RECENT_ROOM_HOURS } from "../live/audiences";
import { BROADCAST_PAGE_SIZE } from "../notify/broadcast";
import { DEAD_LETTER_SOURCES } from "./dead-letters";
import { BROADCAST_FIELDS, BROADCAST_PROGRESS_SHOWN, FANOUT_SAMPLES, opsKeys, RUN_FIELDS } from "../lib/ops/keys";
import type { CronRunRecord } from "../lib/ops/record";
import { READ_STATUS } from "./status.lua";

/** A dependency answered (or not) one cheap call: PING for Redis, `SELECT 1` for Postgres. */
export type Dependency = { name: string; ok: boolean; latencyMs: number; error?: string };
/** A Redis database's entry: `index` in the setting (0 … N − 1). */
export type RedisDependency = Dependency & { index: number };

const PROBE_TIMEOUT_MS = 2_000;
/** Hub shards asked at a time (each is one object call). */
const HUB_CALLS_AT_ONCE = 16;

async function timed<T>(name: string, work: () => Promise<T>): Promise<{ dependency: Dependency; value?: T }> {
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const value = await Promise.race([
      work(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
      }),
    ]);
    return { dependency: { name, ok: true, latencyMs: Date.now() - started }, value };
  } catch (err) {
    return { dependency: { name, ok: false, latencyMs: Date.now() - started, error: err instanceof Error ? err.message : String(err) } };
  } finally {
    clearTimeout(timer);
  }
}

const parse = <T>(raw: unknown): T | null => {
  if (raw === null || raw === undefined || raw === false) return null;
  if (typeof raw !== "string") return raw as T;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
};

/** Nearest-rank percentile of ascending `sorted`. */
function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** What READ_STATUS answers: the counter figures of one database, and on database 0 the operations keys too. */
type RedisFigures = [number, number, string | number | false | null, string | number | false | null, unknown?, unknown[]?, [string, unknown[]][]?, [string, unknown[]][]?];
type PgFigures = { dead_letters: Record<string, number> | null; oldest_dead_letter: string | null; big_accounts: Record<string, number> | null; rooms_recent: number; reports_open: number; oldest_report: string | null };

/** Fields of a Redis hash answered as [field, value, …] (or an object, as the client may decode it). */
function pairs(raw: unknown): Record<string, unknown> {
  if (Array.isArray(raw)) {
    const out: Record<string, unknown> = {};
    for (let i = 0; i + 1 < raw.length; i += 2) out[String(raw[i])] = raw[i + 1];
    return out;
  }
  return (raw as Record<string, unknown>) ?? {};
}

/** One database's counter figures, null when it did not answer. */
function counterFigures(r: RedisFigures | undefined, now: number) {
  const cutAt = r && r[3] !== false && r[3] !== null ? Number(r[3]) : null;
  return {
    pendingFields: r ? Number(r[0]) : null,
    unappliedBatches: r ? Number(r[1]) : null,
    oldestUnappliedBatch: r && r[2] !== false && r[2] !== null ? { batch: String(r[2]), cutAt: cutAt === null ? null : new Date(cutAt).toISOString() } : null,
    flushLagMs: r ? (cutAt === null ? 0 : Math.max(0, now - cutAt)) : null,
  };
}

/**
 * PING, then (when it answered) the status script, on database `index`. Database 0's call also
 * reads the operations keys, which live there only. Never throws: a database down, past its
 * command budget or refused by its marker check is `ok: false` with the error.
 */
async function readDatabase(services: Pick<Services, "redisAt">, index: number, n: number): Promise<{ dependency: RedisDependency; figures?: RedisFigures }> {
  const name = n === 1 ? "default" : `db${index}`;
  const ping = await timed(name, () => services.redisAt(index).ping());
  if (!ping.dependency.ok) return { dependency: { ...ping.dependency, index } };
  const keys = [counterKeys.pending(), counterKeys.unappliedBatches()];
  if (index === 0) keys.push(counterKeys.reconcileCursor(), opsKeys.runs(), opsKeys.fanouts(), opsKeys.broadcasts());
  const read = await timed(name, () =>
    services
      .redisAt(index)
      .createScript<RedisFigures>(READ_STATUS)
      .exec(keys, [counterKeys.batchPrefix(), CUT_AT_FIELD, String(FANOUT_SAMPLES), opsKeys.broadcast(""), String(BROADCAST_PROGRESS_SHOWN)]),
  );
  return { dependency: { ...ping.dependency, index, ...(read.dependency.ok ? {} : { ok: false, error: read.dependency.error }) }, figures: read.value };
}

/** Every database of the setting, PING + script each, at most 6 at a time (Workers' outbound connections). */
export async function readDatabases(services: Pick<Services, "redisAt" | "databases">) {
  let n: number;
  try {
    n = services.databases;
  } catch (err) {
    // A wrong setting (TopologyError): no database can be trusted; say why on database 0's entry.
    const error = err instanceof Error ? err.message : String(err);
    return [{ dependency: { name: "default", index: 0, ok: false, latencyMs: 0, error } as RedisDependency, figures: undefined }];
  }
  // Every database of the deployment, in index order (none a done shrink left).
  const settled = await settleEveryDatabase(n, (index) => readDatabase(services, index, n));
  return [...settled].map(([index, outcome]) => {
    if (outcome.status === "fulfilled") return outcome.value;
    const error = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
    return { dependency: { name: n === 1 ? "default" : `db${index}`, index, ok: false, latencyMs: 0, error } as RedisDependency, figures: undefined };
  });
}

type DatabaseRead = Awaited<ReturnType<typeof readDatabases>>[number];

/**
 * The counter figures of every database, and over all of them: the sums of the databases that
 * answered (null when none did) and the one with the worst lag — the oldest unapplied batch of any
 * database (the console's thresholds read it); on equal lags, a database with a batch waiting
 * before one without.
 */
function counterTotals(databases: readonly DatabaseRead[], now: number) {
  const perDatabase = databases.map(({ dependency, figures }) => ({ index: dependency.index, ok: dependency.ok, ...counterFigures(figures, now) }));
  const answered = perDatabase.filter((d) => d.pendingFields !== null);
  const sum = (pick: (d: (typeof answered)[number]) => number | null) => (answered.length ? answered.reduce((total, d) => total + (pick(d) ?? 0), 0) : null);
  const rank = (d: (typeof answered)[number]) => (d.flushLagMs ?? 0) * 2 + (d.oldestUnappliedBatch ? 1 : 0);
  const worst = answered.reduce<(typeof answered)[number] | undefined>((w, d) => (w === undefined || rank(d) > rank(w) ? d : w), undefined);
  return { perDatabase, worst, pendingFields: sum((d) => d.pendingFields), unappliedBatches: sum((d) => d.unappliedBatches) };
}

/** The last fan-outs' publish → last page (database 0's `ops:fanouts`, newest first): p50, p99, max. */
function fanoutFigures(r: RedisFigures | undefined) {
  const samples = (r?.[6] ?? []).map(([id, fields]) => ({ at: Number(String(id).split("-")[0]), ms: Number(pairs(fields).ms) })).filter((s) => Number.isFinite(s.ms));
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  return {
    samples: samples.length,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : null,
    lastAt: samples[0] ? new Date(samples[0].at).toISOString() : null,
  };
}

/**
 * The newest push broadcasts' progress (database 0's `ops:broadcasts` and each one's hash), newest
 * first: devices queued, sent, failed (dead letters), dropped (gone, deleted) and still to settle;
 * pages done and the rough total, the cursor; the FCM topic send; when it started, when the last
 * page ran, when it settled (every queued device has its last verdict), and the devices settled per
 * second from start to the last write.
 */
function broadcastProgress(r: RedisFigures | undefined) {
  return (r?.[7] ?? []).map(([id, raw]) => {
    const f = pairs(raw);
    const n = (field: keyof typeof BROADCAST_FIELDS) => Number(f[BROADCAST_FIELDS[field]] ?? 0) || 0;
    const at = (field: keyof typeof BROADCAST_FIELDS) => (f[BROADCAST_FIELDS[field]] === undefined ? null : new Date(n(field)).toISOString());
    const text = (field: keyof typeof BROADCAST_FIELDS) => (f[BROADCAST_FIELDS[field]] === undefined ? null : String(f[BROADCAST_FIELDS[field]]));
    const settled = n("sent") + n("failed") + n("dropped");
    const pending = Math.max(0, n("queued") - settled);
    const paged = f[BROADCAST_FIELDS.pagedAt] !== undefined;
    const seconds = (n("lastAt") - n("startedAt")) / 1000;
    const usersTotal = f[BROADCAST_FIELDS.usersTotal] === undefined ? null : n("usersTotal");
    return {
      id: String(id),
      state: paged && pending === 0 ? ("done" as const) : ("running" as const),
      devices: { queued: n("queued"), sent: n("sent"), failed: n("failed"), dropped: n("dropped"), pending, retries: n("retried") },
      users: { paged: n("usersPaged"), queued: n("usersQueued"), total: usersTotal },
      pages: { done: n("pages"), total: usersTotal === null ? null : Math.max(1, Math.ceil(usersTotal / BROADCAST_PAGE_SIZE)), cursor: text("cursor") },
      topic: f[BROADCAST_FIELDS.topic] === undefined ? null : { name: text("topic")!, sentAt: at("topicSentAt"), error: text("topicError") },
      startedAt: at("startedAt"),
      pagedAt: at("pagedAt"),
      finishedAt: paged && pending === 0 ? at("lastAt") : null,
      lastAt: at("lastAt"),
      devicesPerSecond: seconds > 0 ? Math.round((settled / seconds) * 10) / 10 : null,
    };
  });
}

/**
 * The figures the status history keeps, sampled once a minute by the flush cron after its other
 * tasks (`statusHistoryTask`, ./history.ts): the counter figures of every database and the fan-out
 * percentiles (the status script on each, as the status reads them) and the dead letters waiting
 * (one Postgres count). Not the badge hubs' sockets: asking every hub each minute would wake
 * hibernating objects all day for a chart. Never throws: what did not answer is null.
 */
export async function sampleStatus(services: Pick<Services, "redisAt" | "databases" | "db">) {
  const now = Date.now();
  const [databases, dead] = await Promise.all([
    readDatabases(services),
    timed("postgres", () => queryRows<{ n: number }>(services.db, "SELECT count(*)::int AS n FROM dead_letters", [])),
  ]);
  const totals = counterTotals(databases, now);
  return {
    flushLagMs: totals.worst ? totals.worst.flushLagMs : null,
    pendingFields: totals.pendingFields,
    unappliedBatches: totals.unappliedBatches,
    fanoutP99Ms: fanoutFigures(databases.find((d) => d.dependency.index === 0)?.figures).p99Ms,
    deadLetters: dead.value?.[0]?.n ?? null,
  };
}

export type StatusSample = Awaited<ReturnType<typeof sampleStatus>>;

/**
 * The operations view, from state that exists or that background jobs record: per Redis database
 * ONE status script call and a PING (at most 9 billed commands on database 0, which also holds the
 * operations keys, and 6 on each other database), run on up to 6 databases at a time; two Postgres
 * statements (`SELECT 1` and one statement of subqueries); and one `stats()` call per badge hub shard.
 */
export async function readStatus(services: Pick<Services, "redisAt" | "databases" | "db" | "env">) {
  const now = Date.now();
  const [databases, pgPing, pgRead, hubs] = await Promise.all([
    readDatabases(services),
    timed("postgres", () => services.db.execute(sql`select 1`)),
    timed("postgres", () =>
      queryRows<PgFigures>(
        services.db,
        `SELECT
           (SELECT json_object_agg(queue, n) FROM (SELECT queue, count(*)::int AS n FROM dead_letters GROUP BY queue) d) AS dead_letters,
           (SELECT min(died_at) FROM dead_letters) AS oldest_dead_letter,
           (SELECT json_object_agg(state, n) FROM (SELECT state, count(*)::int AS n FROM feed_big_accounts GROUP BY state) b) AS big_accounts,
           (SELECT count(*)::int FROM live_session_starts WHERE started_at > now() - make_interval(hours => $1)) AS rooms_recent,
           (SELECT count(*)::int FROM safety_reports WHERE status = 'open') AS reports_open,
           (SELECT min(created_at) FROM safety_reports WHERE status = 'open') AS oldest_report`,
        [RECENT_ROOM_HOURS],
      ),
    ),
    readHubs(services),
  ]);

  const { perDatabase, worst, pendingFields, unappliedBatches } = counterTotals(databases, now);
  const r = databases.find((d) => d.dependency.index === 0)?.figures;
  const runs = pairs(r?.[5]);
  const run = <T>(field: string) => parse<T>(runs[field]);
  const cursor = r ? parse<{ entity: string; after: string; startedAt?: string; corrected?: number }>(r[4]) : null;
  const flush = run<Record<string, unknown> & { at: string }>(RUN_FIELDS.flush);
  const fanouts = fanoutFigures(r);
  const pg = pgRead.value?.[0];
  const dead = Object.fromEntries(DEAD_LETTER_SOURCES.map((q) => [q, pg?.dead_letters?.[q] ?? 0])) as Record<string, number>;
  const live = run<{ at: string; asked: number; live: number; largest: { roomId: string; viewers: number; onlineFans: number }[] }>(RUN_FIELDS.liveRooms);

  return {
    at: new Date(now).toISOString(),
    dependencies: {
      redis: databases.map((d) => d.dependency),
      postgres: { ...pgPing.dependency, ok: pgPing.dependency.ok && pgRead.dependency.ok, ...(pgRead.dependency.error && !pgPing.dependency.error ? { error: pgRead.dependency.error } : {}) },
    },
    counters: {
      pendingFields,
      unappliedBatches,
      oldestUnappliedBatch: worst?.oldestUnappliedBatch ? { ...worst.oldestUnappliedBatch, database: worst.index } : null,
      flushLagMs: worst ? worst.flushLagMs : null,
      databases: perDatabase,
      lastFlush: flush ? { ...flush, ageMs: Math.max(0, now - Date.parse(flush.at)) } : null,
      reconcile: {
        running: cursor !== null,
        position: cursor ? { entity: cursor.entity, after: cursor.after } : null,
        startedAt: cursor?.startedAt ?? null,
        correctedSoFar: cursor ? (cursor.corrected ?? 0) : null,
        lastPass: run<{ startedAt: string | null; finishedAt: string; corrected: number }>(RUN_FIELDS.reconcile),
      },
    },
    feed: {
      deadLetters: pg ? dead : null,
      deadLettersTotal: pg ? Object.values(dead).reduce((a, b) => a + b, 0) : null,
      oldestDeadLetterAt: pg?.oldest_dead_letter ? new Date(pg.oldest_dead_letter).toISOString() : null,
      bigAccounts: pg ? { big: pg.big_accounts?.big ?? 0, toBig: pg.big_accounts?.["to-big"] ?? 0, toNormal: pg.big_accounts?.["to-normal"] ?? 0 } : null,
      fanouts,
    },
    badgesPush: hubs,
    notify: { broadcasts: broadcastProgress(r) },
    liveRooms: {
      startedLast6h: pg ? pg.rooms_recent : null,
      largest: live?.largest ?? [],
      asOf: live?.at ?? null,
      asked: live?.asked ?? 0,
      live: live?.live ?? 0,
    },
    reports: {
      open: pg ? pg.reports_open : null,
      oldestOpenAt: pg?.oldest_report ? new Date(pg.oldest_report).toISOString() : null,
      oldestOpenAgeMs: pg?.oldest_report ? Math.max(0, now - Date.parse(pg.oldest_report)) : pg ? 0 : null,
    },
    cron: Object.fromEntries(
      (Object.keys(CRON_SCHEDULES) as CronJobName[]).map((job) => [job, { schedule: CRON_SCHEDULES[job], lastRun: run<CronRunRecord>(RUN_FIELDS.cron(job)) }]),
    ) as Record<CronJobName, { schedule: string; lastRun: CronRunRecord | null }>,
  };
}

export type Status = Awaited<ReturnType<typeof readStatus>>;

/** Each hub shard's own figures (one `stats()` call per shard), summed. */
async function readHubs(services: Pick<Services, "env">) {
  const shards = hubShards(services.env);
  const figures: { sockets: number; users: number }[] = [];
  let failed = 0;
  for (let i = 0; i < shards; i += HUB_CALLS_AT_ONCE) {
    const answers = await Promise.allSettled(Array.from({ length: Math.min(HUB_CALLS_AT_ONCE, shards - i) }, (_, j) => hubStub(services.env, i + j).stats()));
    for (const a of answers) {
      if (a.status === "fulfilled") figures.push(a.value);
      else failed += 1;
    }
  }
  return {
    hubs: shards,
    hubsAnswered: figures.length,
    hubsFailed: failed,
    socketsOpen: figures.reduce((s, f) => s + f.sockets, 0),
    usersOnline: figures.reduce((s, f) => s + f.users, 0),
  };
}
