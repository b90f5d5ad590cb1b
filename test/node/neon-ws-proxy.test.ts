/**
 * The WebSocket-to-TCP proxy, proven with the real Neon serverless `Pool`
 * configured exactly as the Worker configures it for local runs.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { neonConfig, Pool } from "@neondatabase/serverless";
import ws from "ws";
import { randomBytes } from "node:crypto";
import { startNeonWsProxy, type NeonWsProxy } from "../../scripts/stack/neon-ws-proxy.js";

let proxy: NeonWsProxy;
const table = `proxy_test_${randomBytes(4).toString("hex")}`;

/** A pool through our own proxy (so setDown disturbs no other test file). */
const newPool = () => new Pool({ connectionString: inject("databaseUrl"), max: 2 });

beforeAll(async () => {
  proxy = await startNeonWsProxy();
  neonConfig.webSocketConstructor = ws;
  neonConfig.wsProxy = (host, port) => `${proxy.wsProxy}?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
  const pool = newPool();
  await pool.query(`CREATE TABLE ${table} (id int PRIMARY KEY, note text)`);
  await pool.end();
});

afterAll(async () => {
  proxy.setDown(false);
  const pool = newPool();
  await pool.query(`DROP TABLE IF EXISTS ${table}`);
  await pool.end();
  await proxy.close();
});

describe("Neon Pool through the proxy", () => {
  it("counts the statements and connections that pass through it (what benchmarks report)", async () => {
    const before = { ...proxy.stats };
    const pool = newPool();
    await pool.query("SELECT 1"); // extended protocol: one Execute
    await pool.query("SELECT $1::int AS n", [2]);
    const client = await pool.connect();
    await client.query("SELECT 3; SELECT 4"); // simple protocol: one Query message
    client.release();
    await pool.end();
    expect(proxy.stats.statements - before.statements).toBe(3);
    expect(proxy.stats.connections - before.connections).toBeGreaterThanOrEqual(1);
  });

  it("runs a query with parameters", async () => {
    const pool = newPool();
    const { rows } = await pool.query("SELECT $1::int + 1 AS two, current_database() AS db", [1]);
    await pool.end();
    expect(rows).toEqual([{ two: 2, db: new URL(inject("databaseUrl")).pathname.slice(1) }]);
  });

  it("commits a transaction, visible to a second connection", async () => {
    const pool = newPool();
    const client = await pool.connect();
    await client.query("BEGIN");
    await client.query(`INSERT INTO ${table} VALUES (1, 'committed')`);
    await client.query("COMMIT");
    client.release();
    await pool.end();

    const other = newPool();
    const { rows } = await other.query(`SELECT note FROM ${table} WHERE id = 1`);
    await other.end();
    expect(rows).toEqual([{ note: "committed" }]);
  });

  it("rolls back a transaction, leaving nothing for a second connection", async () => {
    const pool = newPool();
    const client = await pool.connect();
    await client.query("BEGIN");
    await client.query(`INSERT INTO ${table} VALUES (2, 'rolled back')`);
    expect((await client.query(`SELECT count(*)::int AS n FROM ${table} WHERE id = 2`)).rows).toEqual([{ n: 1 }]);
    await client.query("ROLLBACK");
    client.release();
    await pool.end();

    const other = newPool();
    const { rows } = await other.query(`SELECT count(*)::int AS n FROM ${table} WHERE id = 2`);
    await other.end();
    expect(rows).toEqual([{ n: 0 }]);
  });

  it("setDown refuses new connections and drops live ones; setDown(false) restores", async () => {
    const live = newPool();
    const held = await live.connect();
    const dropped = new Promise((resolve) => held.once("error", resolve));

    proxy.setDown(true);
    await expect(dropped).resolves.toBeInstanceOf(Error);
    held.release(true);
    await live.end().catch(() => {});

    const pool = newPool();
    pool.on("error", () => {}); // idle-client errors are expected while down
    const started = Date.now();
    await expect(pool.query("SELECT 1")).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2_000);
    await pool.end().catch(() => {});

    proxy.setDown(false);
    const again = newPool();
    expect((await again.query("SELECT 1 AS ok")).rows).toEqual([{ ok: 1 }]);
    await again.end();
  });
});
