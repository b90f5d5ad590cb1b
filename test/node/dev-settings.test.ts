/**
 * `npm run dev`'s Worker settings: a far-region stack runs the Worker as an Upstash Global
 * deployment does (read regions on, so a write answers X-Consistency-Token), `--read-regions off`
 * compares with the single-region mode, and `--var NAME=VALUE` sets any variable over the rest.
 */
import { sign } from "hono/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_JWT_SECRET, readDevVars } from "../../scripts/dev-vars";
import { devWorkerVars, parseReadRegionsFlag, parseVarFlags } from "../../scripts/dev/worker-vars";
import { hasRedisServerBinary } from "../../scripts/stack/redis";
import { newId } from "../support/ids";
import { devDataDir, startDevRun, type DevRun } from "./support/dev-run";

describe("the dev runner's Worker settings", () => {
  const base = { JWT_SECRET: "s", CORS_ORIGINS: "http://localhost:*" };

  it("turns read regions on with a far region, as a Global deployment runs", () => {
    expect(devWorkerVars({ base, farRegionMs: 40, readRegions: undefined, overrides: {} }).REDIS_READ_REGIONS).toBe("on");
  });

  it("keeps wrangler.toml's setting without a far region", () => {
    expect(devWorkerVars({ base, farRegionMs: undefined, readRegions: undefined, overrides: {} })).toEqual(base);
  });

  it("compares with the single-region mode on --read-regions off", () => {
    expect(devWorkerVars({ base, farRegionMs: 40, readRegions: "off", overrides: {} }).REDIS_READ_REGIONS).toBe("off");
  });

  it("lets --var win over the stack's settings and the read-region mode", () => {
    const vars = devWorkerVars({ base, farRegionMs: 40, readRegions: undefined, overrides: parseVarFlags(["CORS_ORIGINS=https://app.example", "REDIS_READ_REGIONS=off", "EMPTY="]) });
    expect(vars).toEqual({ JWT_SECRET: "s", CORS_ORIGINS: "https://app.example", REDIS_READ_REGIONS: "off", EMPTY: "" });
  });

  it("keeps everything after the first '=' as the value", () => {
    expect(parseVarFlags(["JWT_ROLE_CLAIM=role admin=admin,service=service"])).toEqual({ JWT_ROLE_CLAIM: "role admin=admin,service=service" });
  });

  it.each(["NOEQUALS", "=value", "1BAD=x", "BAD-NAME=x"])("refuses --var %s, naming it", (flag) => {
    expect(() => parseVarFlags([flag])).toThrow(JSON.stringify(flag));
  });

  it("refuses a --read-regions value other than on or off", () => {
    expect(parseReadRegionsFlag(undefined)).toBeUndefined();
    expect(parseReadRegionsFlag("off")).toBe("off");
    expect(() => parseReadRegionsFlag("yes")).toThrow("expected on or off");
  });
});

describe.skipIf(!hasRedisServerBinary())("npm run dev -- --serve --far-region-ms 40 --var …", () => {
  let data: ReturnType<typeof devDataDir>;
  let dev: DevRun;
  beforeAll(async () => {
    data = devDataDir("dev-settings-");
    dev = await startDevRun(["--serve", "--far-region-ms", "40", "--var", "CORS_ORIGINS=https://app.example"], { dataDir: data.path });
  }, 120_000);
  afterAll(async () => {
    await dev?.stop();
    data?.remove();
  }, 60_000);

  it("answers a follow with X-Consistency-Token, as a Global deployment does", async () => {
    const token = await sign({ sub: newId(), exp: Math.floor(Date.now() / 1000) + 600 }, readDevVars().JWT_SECRET ?? DEV_JWT_SECRET, "HS256");
    const res = await fetch(`${dev.url}/v1/me/following/${newId()}`, { method: "PUT", headers: { authorization: `Bearer ${token}` } });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    expect(res.headers.get("x-consistency-token"), dev.output.slice(-20).join("\n")).toBeTruthy();
    expect(dev.output.join("\n")).toContain("REDIS_READ_REGIONS=on");
  });

  it("runs the Worker with the --var given", async () => {
    const res = await fetch(`${dev.url}/v1/counters/post?ids=1`, { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "GET" } });
    expect(res.headers.get("access-control-allow-origin")).toBe("https://app.example");
  });
});
