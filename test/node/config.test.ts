import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { workerOptionsFromWrangler } from "../../scripts/stack/workerd";
import { CRON_SCHEDULES } from "../../src/cron";
import { FEED_DEAD_LETTER_QUEUES, FEED_QUEUES } from "../../src/feed/messages";
import { NOTIFY_DEAD_LETTER_QUEUES, NOTIFY_QUEUES } from "../../src/notify/sends";
import { RATE_LIMIT_PERIODS } from "../../src/lib/rate-limit";

const wranglerToml = readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8");
const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

describe("wrangler.toml", () => {
  it("declares exactly the cron triggers the scheduled handler knows", () => {
    const crons = wranglerToml.match(/^crons\s*=\s*\[(.*)\]/m)?.[1];
    const declared = [...(crons ?? "").matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    expect(declared.sort()).toEqual(Object.values(CRON_SCHEDULES).sort());
  });

  it("declares every rate limiter with the period the Retry-After header announces", () => {
    for (const [name, period] of Object.entries(RATE_LIMIT_PERIODS)) {
      const block = wranglerToml.match(new RegExp(`name = "${name}"[\\s\\S]*?simple = \\{[^}]*period = (\\d+)`));
      expect(block?.[1], name).toBe(String(period));
    }
  });

  it("declares the feed's queues as the code names them, each retried into a dead-letter queue that is consumed too", async () => {
    const { queueProducers, queueConsumers } = await workerOptionsFromWrangler();
    expect(queueProducers).toMatchObject({ FEED_QUEUE: { queueName: FEED_QUEUES.fanout }, FEED_SYNC_QUEUE: { queueName: FEED_QUEUES.followSync } });
    for (const kind of ["fanout", "followSync"] as const) {
      const consumers = queueConsumers as Record<string, { maxRetries?: number; deadLetterQueue?: string }>;
      expect(consumers[FEED_QUEUES[kind]], kind).toMatchObject({ maxRetries: 5, deadLetterQueue: FEED_DEAD_LETTER_QUEUES[kind] });
      expect(consumers[FEED_DEAD_LETTER_QUEUES[kind]], kind).toBeDefined();
    }
  });

  it("declares the push queue as the code names it, retried into a dead-letter queue that is consumed too", async () => {
    const { queueProducers, queueConsumers } = await workerOptionsFromWrangler();
    expect(queueProducers).toMatchObject({ NOTIFY_QUEUE: { queueName: NOTIFY_QUEUES.send } });
    const consumers = queueConsumers as Record<string, { maxRetries?: number; deadLetterQueue?: string }>;
    expect(consumers[NOTIFY_QUEUES.send]).toMatchObject({ maxRetries: 5, deadLetterQueue: NOTIFY_DEAD_LETTER_QUEUES.send });
    expect(consumers[NOTIFY_DEAD_LETTER_QUEUES.send]).toBeDefined();
  });

  it("has every queue it names created by the README's deploy steps (wrangler deploy needs them to exist)", async () => {
    const { queueProducers = {}, queueConsumers = {} } = await workerOptionsFromWrangler();
    const producers = Object.values(queueProducers as Record<string, { queueName: string }>).map((p) => p.queueName);
    const consumers = Object.entries(queueConsumers as Record<string, { deadLetterQueue?: string }>).flatMap(([queue, c]) => (c.deadLetterQueue ? [queue, c.deadLetterQueue] : [queue]));
    const named = [...new Set([...producers, ...consumers])].sort();
    expect(named.length).toBeGreaterThan(0);
    const deploying = readme.split(/^## Deploying to Cloudflare/m)[1]?.split(/^## /m)[0] ?? "";
    const created = [...deploying.matchAll(/^\s*npx wrangler queues create (\S+)\s*$/gm)].map((m) => m[1]!).sort();
    expect(created).toEqual(named);
  });

  it("keeps secrets out of [vars]", () => {
    const vars = (wranglerToml.split("[vars]")[1]?.split(/^\[/m)[0] ?? "").replace(/#.*$/gm, "");
    expect(vars).not.toMatch(/JWT_SECRET|TOKEN|DATABASE_URL/);
  });
});
