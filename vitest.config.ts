/**
 * Three projects share one local stack (started once by `test/global-setup.ts`):
 *   node       — `test/node/**`: the stack itself, in Node.
 *   workers    — every other `test/**` file but those at N = 3, inside workerd with the Worker's
 *                bindings pointing at the stack (one Redis database).
 *   workers-n3 — the tests at N = 3 (`*databases.test.ts`, N3_FILES), inside a workerd of their own
 *                whose Worker is bound to the stack's three Redis databases; it runs after the others.
 *   workers-far — the model tests again far from the primary region (`*-far.test.ts`, FAR_FILES):
 *                a stack of its own (test/far-region-setup.ts, started only when the run has such
 *                files) whose three databases are read regions R = 30 ms from their primaries, and
 *                a Worker bound to them with `REDIS_READ_REGIONS = on`.
 */
import { configDefaults, defineConfig } from "vitest/config";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import type {} from "./test/global-setup.js"; // brings the ProvidedContext keys into scope

// No internet here: stop miniflare fetching the `Request.cf` object, and wrangler telemetry.
process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
process.env.WRANGLER_SEND_METRICS = "false";

/**
 * Test files already run to the end by an earlier attempt of `npm test` (scripts/test.ts sets it
 * after the Workers pool stalled), one path per line: this attempt runs only the others.
 */
const alreadyRun = (process.env.TEST_SKIP_FILES ?? "").split("\n").filter(Boolean);

/**
 * What the Worker imports from these packages, pre-bundled (Vite's dependency optimizer) for the
 * workers project. Every import of them from `src/` or a workers test must be listed here: one
 * left out would load a second copy of the package's modules beside the bundled one (two
 * `HTTPException` classes, two zod registries). test/node/prebundled.test.ts checks it.
 */
export const PREBUNDLED_PACKAGES = ["hono", "zod", "@hono/zod-openapi", "drizzle-orm", "@neondatabase/serverless", "@upstash/redis"] as const;
export const PREBUNDLED_DEPENDENCIES = [
  "hono",
  "hono/body-limit",
  "hono/cors",
  "hono/factory",
  "hono/http-exception",
  "hono/jwt",
  "hono/method-not-allowed",
  "hono/router",
  "hono/router/reg-exp-router",
  "hono/router/trie-router",
  "hono/utils/http-status",
  "zod",
  "@hono/zod-openapi",
  "drizzle-orm",
  "drizzle-orm/neon-http",
  "drizzle-orm/neon-serverless",
  "drizzle-orm/pg-core",
  "@neondatabase/serverless",
  "@upstash/redis",
  "@upstash/redis/cloudflare",
] as const;

/** Writes per user per minute in tests; test/platform/conventions.test.ts relies on it. */
export const TEST_WRITE_LIMIT = 150;

/**
 * The tests at N = 3 (`*databases.test.ts`): they run in a Worker of their own whose bindings are
 * the stack's three Redis databases (`UPSTASH_REDIS_DATABASES`), so its queue consumers and Durable
 * Objects run at N = 3 as a deployment's do, not only the requests a test sends with an env of its
 * own. Every other Workers test runs in a Worker of one database (database 0).
 */
export const N3_FILES = "test/**/*databases.test.ts";

/**
 * The model tests far from the primary region (`*-far.test.ts`; scripts/test-shards.ts' FAR_FILE
 * is the same rule): a Worker bound to read regions of the far stack's three databases, with the
 * consistency token on and carried by the tests as the typed client carries it. The stack is the
 * project's own (nothing of the other projects' data), so it shares the workers project's group
 * (here vitest still ran the two projects' files one after the other).
 */
export const FAR_FILES = "test/**/*-far.test.ts";

/**
 * A Workers project: the Worker of wrangler.toml with its bindings pointing at the stack.
 * `databases`: bound to the stack's several Redis databases (when it runs them) instead of one.
 * `groupOrder`: the two projects run one after the other, never side by side: both use database 0,
 * and a file of one may flush what a file of the other has just written.
 */
function workersProject(options: { name: string; include: string[]; exclude: string[]; groupOrder: number; databases?: boolean; far?: boolean }) {
  return {
    plugins: [
      cloudflareTest(({ inject }) => {
        // The far project's Worker and tests use its own stack's addresses; every other project the root stack's.
        const far = options.far ? inject("farStack") : undefined;
        if (options.far && !far) throw new Error("workers-far: the far stack was not started (test/far-region-setup.ts runs before test/global-setup.ts)");
        const stack = (key: keyof NonNullable<typeof far>) => (far ? far[key] : inject(key));
        return {
          wrangler: { configPath: "./wrangler.toml" },
          miniflare: {
            // A lower write limit than production (wrangler.toml) so the 429 test reaches it
            // well inside the limiter's 60 s window even on a loaded machine.
            // The feed queues as wrangler.toml declares them, delivered within 50 ms instead of 1 s and
            // dead-lettered after two retries instead of five, so the tests wait less.
            queueConsumers: {
              "feed-fanout": { maxBatchSize: 10, maxBatchTimeout: 0.05, maxRetries: 2, retryDelay: 0, deadLetterQueue: "feed-fanout-dlq" },
              "feed-fanout-dlq": { maxBatchSize: 10, maxBatchTimeout: 0.05 },
              "feed-follow-sync": { maxBatchSize: 10, maxBatchTimeout: 0.05, maxRetries: 2, retryDelay: 0, deadLetterQueue: "feed-follow-sync-dlq" },
              "feed-follow-sync-dlq": { maxBatchSize: 10, maxBatchTimeout: 0.05 },
              "notify-send": { maxBatchSize: 10, maxBatchTimeout: 0.05, maxRetries: 2, retryDelay: 0, deadLetterQueue: "notify-send-dlq" },
              "notify-send-dlq": { maxBatchSize: 10, maxBatchTimeout: 0.05 },
              "account-erase": { maxBatchSize: 10, maxBatchTimeout: 0.05, maxRetries: 2, retryDelay: 0, deadLetterQueue: "account-erase-dlq" },
              "account-erase-dlq": { maxBatchSize: 10, maxBatchTimeout: 0.05 },
            },
            ratelimits: { WRITE_LIMITER: { namespace_id: "1001", simple: { limit: TEST_WRITE_LIMIT, period: 60 } }, REPORT_LIMITER: { namespace_id: "1003", simple: { limit: 10, period: 60 } } },
            bindings: {
              // wrangler.toml's vars are production's; the tests run the Worker as development does
              // (the local push services' http://localhost endpoints, the notify clock offset), as
              // `npm run dev` sets it. Tests of production behaviour set ENVIRONMENT per request.
              ENVIRONMENT: "development",
              UPSTASH_REDIS_REST_URL: stack("restUrl"),
              UPSTASH_REDIS_REST_TOKEN: stack("restToken"),
              // The workers-n3 project's Worker runs over the stack's databases ("" when the stack
              // runs one: its tests are skipped then). Tests of the workers project that need another
              // setting build their env with it (test/support/databases.ts).
              UPSTASH_REDIS_DATABASES: options.databases ? stack("redisDatabases") : "",
              DATABASE_URL: stack("databaseUrl"),
              NEON_WS_PROXY: stack("wsProxy"),
              NEON_HTTP_PROXY: stack("httpProxy"),
              JWT_SECRET: inject("jwtSecret"),
              STACK_CONTROL_URL: stack("controlUrl"),
              STACK_REDIS_DATABASES: stack("redisDatabases"),
              // The local push services: not the Worker's own push settings (tests of unconfigured
              // providers rely on their absence); test/support/push-services.ts builds an env with them.
              STACK_PUSH_ENV: stack("pushEnv"),
              STACK_PUSH_URL: stack("pushControlUrl"),
              // Tests read right after writing through other paths (domain functions, Postgres by
              // hand, other Redis bridges): they check what a reader sees where no edge copy is.
              // test/counters/edge-cache.test.ts turns the copy on per request.
              COUNTER_EDGE_CACHE_MS: "0",
              // No log lines from the Worker unless asked for (TEST_LOG_LEVEL=info npm test -- …).
              // A line written in a request, queue batch or Durable Object is not the test
              // runner's I/O: the pool holds it until the runner next sends something, and one
              // still held when a file's run closes fails the run with an unhandled
              // "Closing rpc while onUserConsoleLog was pending". The Worker writes a line per
              // request and per queue delivery, so a run of thousands of requests met that.
              LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "off",
              // The far project's databases have read regions: answers carry X-Consistency-Token.
              REDIS_READ_REGIONS: options.far ? "on" : "off",
              // One seed of the notifications model to replay (test/notify/model.test.ts); "": its own seeds.
              NOTIFY_MODEL_SEED: process.env.NOTIFY_MODEL_SEED ?? "",
            },
          },
        };
      }),
    ],
    test: {
      name: options.name,
      // Asks the root's global setup for the far project's stack (test/far-region-setup.ts).
      ...(options.far ? { globalSetup: ["./test/far-region-setup.ts"] } : {}),
      // One workerd and one module graph for all of this project's files, as one long-lived
      // production isolate serves many requests: a file no longer pays for a fresh runtime and
      // a fresh import of the Worker (about 2 s each), and the pool no longer starts a runtime
      // between two files, which is where it stalled (cloudflare/workers-sdk#15498). Files
      // already share the stack's Redis and Postgres; ids are random, and a test that needs a
      // per-isolate cache in a known state sets it up itself.
      isolate: false,
      include: options.include,
      exclude: [...options.exclude, ...alreadyRun],
      sequence: { groupOrder: options.groupOrder },
      setupFiles: ["./test/support/warm-worker.ts"],
      // Workers tests load every module over the pool's module runner, one request each, in each
      // file's fresh workerd: these packages' hundreds of files go as a few pre-bundled chunks.
      deps: { optimizer: { ssr: { enabled: true, include: [...PREBUNDLED_DEPENDENCIES] } } },
      // Generous: some app tests drive hundreds of requests through workerd, and CI has 2 cores.
      testTimeout: 60_000,
    },
  };
}

export default defineConfig({
  // A shard of `npm test` (scripts/test.ts sets TEST_SHARD) keeps its own Vite cache: shards run
  // side by side, and each pre-bundles the Worker's dependencies (below) into its cache directory,
  // replacing the directory as it finishes; sharing one, a shard could read a file another was
  // just replacing.
  cacheDir: process.env.TEST_SHARD ? `node_modules/.vite/shard-${process.env.TEST_SHARD}` : undefined,
  test: {
    // Root-level only: runs once for the whole run. Do not add `extends: true` to the
    // projects below, or they would inherit it and start one stack each.
    globalSetup: ["./test/global-setup.ts"],
    // Show console output only for failing tests (the Worker's own lines are off in tests unless
    // TEST_LOG_LEVEL asks for them: see LOG_LEVEL in workersProject).
    silent: "passed-only",
    projects: [
      {
        test: {
          name: "node",
          environment: "node",
          include: ["test/node/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...alreadyRun],
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      workersProject({ name: "workers", include: ["test/**/*.test.ts"], exclude: ["test/node/**", N3_FILES, FAR_FILES], groupOrder: 0 }),
      workersProject({ name: "workers-n3", include: [N3_FILES], exclude: [], groupOrder: 1, databases: true }),
      workersProject({ name: "workers-far", include: [FAR_FILES], exclude: ["test/node/**"], groupOrder: 0, databases: true, far: true }),
    ],
  },
});
