import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { workerOptionsFromWrangler } from "../../scripts/stack/workerd";

const dir = mkdtempSync(join(tmpdir(), "ce-wrangler-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("workerOptionsFromWrangler", () => {
  it("reads the project's compatibility, Durable Objects, rate limiters and vars", async () => {
    const options = await workerOptionsFromWrangler();
    expect(options.compatibilityDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(options.compatibilityFlags).toContain("nodejs_compat");
    expect(options.durableObjects).toMatchObject({ LIVE_ROOMS: { className: "LiveRoom", useSQLite: true } });
    expect(Object.keys(options.ratelimits ?? {}).sort()).toEqual(["REPORT_LIMITER", "VIEW_LIMITER", "WRITE_LIMITER"]);
    expect(options.bindings).toMatchObject({ ENVIRONMENT: "production" });
  });

  it("puts no asset router in front of the Worker, and passes the rule that bundles the /docs files as Data", async () => {
    const options = await workerOptionsFromWrangler();
    // With [assets], every API request would enter through the asset router first (issue 20).
    expect(options.assets).toBeUndefined();
    expect(options.modulesRules).toEqual(expect.arrayContaining([expect.objectContaining({ type: "Data", include: ["**/*.gz"] })]));
  });

  it("passes queue producers and consumers (with their dead-letter queue) through", async () => {
    writeFileSync(join(dir, "index.js"), "export default {}");
    const configPath = join(dir, "wrangler.toml");
    writeFileSync(
      configPath,
      [
        'name = "queues"',
        'main = "index.js"',
        'compatibility_date = "2026-04-20"',
        "[[queues.producers]]",
        'binding = "FEED_QUEUE"',
        'queue = "feed-fanout"',
        "[[queues.consumers]]",
        'queue = "feed-fanout"',
        "max_batch_size = 100",
        'dead_letter_queue = "feed-fanout-dlq"',
        "[[queues.consumers]]",
        'queue = "feed-fanout-dlq"',
      ].join("\n"),
    );
    const options = await workerOptionsFromWrangler(configPath);
    expect(options.queueProducers).toMatchObject({ FEED_QUEUE: { queueName: "feed-fanout" } });
    expect(options.queueConsumers).toMatchObject({
      "feed-fanout": { maxBatchSize: 100, deadLetterQueue: "feed-fanout-dlq" },
      "feed-fanout-dlq": {},
    });
  });
});
