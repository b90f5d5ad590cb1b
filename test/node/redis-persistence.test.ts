import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { hasRedisServerBinary, startRedis, type RedisHandle } from "../../scripts/stack/redis";

const dirs: string[] = [];
const handles: RedisHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.stop()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function withClient<T>(url: string, work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

describe.skipIf(!hasRedisServerBinary())("startRedis with a data directory (dev)", () => {
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "ce-redis-test-"));
    chmodSync(dir, 0o755);
    dirs.push(dir);
    return join(dir, "redis");
  };

  it("keeps what was written across a stop and a new start on another port", async () => {
    const dir = dataDir();
    const first = await startRedis({ ignoreEnv: true, dataDir: dir });
    await withClient(first.url, (r) => r.hset("ctr:pending", "user:1:following", "1"));
    await first.stop();

    const second = await startRedis({ ignoreEnv: true, dataDir: dir });
    handles.push(second);
    expect(second.url).not.toBe(first.url);
    expect(await withClient(second.url, (r) => r.hget("ctr:pending", "user:1:following"))).toBe("1");
  });

  it("keeps data across restart()", async () => {
    const handle = await startRedis({ ignoreEnv: true, dataDir: dataDir() });
    handles.push(handle);
    await withClient(handle.url, (r) => r.set("k", "v"));
    await handle.restart();
    expect(await withClient(handle.url, (r) => r.get("k"))).toBe("v");
  });

  it("reports each spawned server's pid", async () => {
    const pids: number[] = [];
    const handle = await startRedis({ ignoreEnv: true, dataDir: dataDir(), onSpawn: (pid) => pids.push(pid) });
    handles.push(handle);
    await handle.restart();
    expect(pids).toHaveLength(2);
  });

  it("keeps nothing without a data directory (tests, benchmarks)", async () => {
    const handle = await startRedis({ ignoreEnv: true });
    handles.push(handle);
    await withClient(handle.url, (r) => r.set("k", "v"));
    await handle.restart();
    expect(await withClient(handle.url, (r) => r.get("k"))).toBeNull();
  });
});
