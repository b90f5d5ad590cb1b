/**
 * The stack's servers when the port one picked is taken before it binds it (another shard's stack
 * starting beside it): the first start fails (Postgres with the postmaster's own lines; Redis also
 * when another redis-server answers there), and the stack starts it again on another port instead
 * of failing the run or talking to the other server.
 */
import { createServer, type Server } from "node:net";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/stack/free-port";
import { startPostgres } from "../../scripts/stack/postgres";
import { hasRedisServerBinary, startRedis } from "../../scripts/stack/redis";
import { Redis as RedisConnection } from "ioredis";

let taken: Server | undefined;
afterAll(() => taken?.close());

describe.skipIf(process.env.DATABASE_URL)("the embedded Postgres' first start", () => {
  it("is tried again on another port when the picked one is taken, and serves queries there", async () => {
    const busyPort = await freePort();
    taken = createServer();
    await new Promise<void>((resolve) => taken!.listen(busyPort, "127.0.0.1", resolve));
    const ports = [busyPort];
    const lines: string[] = [];
    const postgres = await startPostgres({ mode: "test", log: (line) => lines.push(line), pickPort: async () => ports.shift() ?? freePort() });
    try {
      expect(new URL(postgres.url).port).not.toBe(String(busyPort));
      const retried = lines.find((line) => line.includes("starting it again on another port"));
      expect(retried).toContain(`port ${busyPort}`);
      const client = new pg.Client({ connectionString: postgres.url });
      await client.connect();
      try {
        expect((await client.query<{ one: number }>("SELECT 1 AS one")).rows[0]!.one).toBe(1);
      } finally {
        await client.end();
      }
    } finally {
      await postgres.stop();
    }
  }, 120_000);
});

describe.skipIf(!hasRedisServerBinary())("a redis-server's first start", () => {
  it("is tried again on another port when another redis-server holds the picked one, and the stack's url reaches its own", async () => {
    const other = await startRedis({ ignoreEnv: true });
    try {
      const otherPort = Number(new URL(other.url).port);
      const ports = [otherPort];
      const lines: string[] = [];
      const own = await startRedis({ ignoreEnv: true, log: (line) => lines.push(line), pickPort: async () => ports.shift() ?? freePort() });
      try {
        expect(new URL(own.url).port).not.toBe(String(otherPort));
        expect(lines.some((line) => line.includes("starting it again on another port"))).toBe(true);
        const [a, b] = [new RedisConnection(other.url), new RedisConnection(own.url)];
        try {
          await a.set("which", "other");
          expect(await b.get("which")).toBeNull();
        } finally {
          a.disconnect();
          b.disconnect();
        }
      } finally {
        await own.stop();
      }
    } finally {
      await other.stop();
    }
  }, 60_000);
});
