/**
 * The Worker's log lines and LOG_LEVEL (src/lib/log.ts): each entry point applies its env's level.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/env";
import { applyLogLevel, log, logs } from "../../src/lib/log";
import { api, show } from "../support/api";

/** Every line written through the console while `run` runs, in order, parsed, with the method used. */
async function linesWrittenBy<T>(run: () => Promise<T>): Promise<{ result: T; lines: { method: string; line: Record<string, unknown> }[] }> {
  const lines: { method: string; line: Record<string, unknown> }[] = [];
  const spies = (["debug", "log", "warn", "error"] as const).map((method) =>
    vi.spyOn(console, method).mockImplementation((text: unknown) => void lines.push({ method, line: JSON.parse(String(text)) as Record<string, unknown> })),
  );
  try {
    return { result: await run(), lines };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

// The level is per isolate, and this isolate runs other files next: back to the tests' setting.
afterEach(() => applyLogLevel((env as unknown as Env).LOG_LEVEL));

describe("LOG_LEVEL", () => {
  it("writes its level and those above it; off writes nothing; unset is info", () => {
    const written = (setting: string | undefined) => (applyLogLevel(setting), (["debug", "info", "warn", "error"] as const).filter(logs));
    expect(written("debug")).toEqual(["debug", "info", "warn", "error"]);
    expect(written("info")).toEqual(["info", "warn", "error"]);
    expect(written(" WARN ")).toEqual(["warn", "error"]);
    expect(written("error")).toEqual(["error"]);
    expect(written("off")).toEqual([]);
    expect(written(undefined)).toEqual(["info", "warn", "error"]);
    expect(written("")).toEqual(["info", "warn", "error"]);
  });

  it("writes a line as JSON with its level first, through the console method of that level", async () => {
    applyLogLevel("debug");
    const { lines } = await linesWrittenBy(async () => {
      log.debug({ message: "d", n: 1 });
      log.info({ message: "i" });
      log.warn({ message: "w" });
      log.error({ message: "e", error: "boom" });
    });
    expect(lines).toEqual([
      { method: "debug", line: { level: "debug", message: "d", n: 1 } },
      { method: "log", line: { level: "info", message: "i" } },
      { method: "warn", line: { level: "warn", message: "w" } },
      { method: "error", line: { level: "error", message: "e", error: "boom" } },
    ]);
  });

  it("a value that is not a level is written once as an error, and info is used", async () => {
    const { lines } = await linesWrittenBy(async () => {
      applyLogLevel("verbose");
      applyLogLevel("verbose");
      log.info({ message: "still written" });
    });
    expect(lines.map((l) => l.method)).toEqual(["error", "log"]);
    expect(lines[0]!.line).toMatchObject({ level: "error", setting: "verbose" });
    expect(String(lines[0]!.line.message)).toContain("LOG_LEVEL");
    expect(lines[1]!.line).toEqual({ level: "info", message: "still written" });
  });
});

describe("the Worker's request line", () => {
  it("at info: one line per request with its id, method, path, status and duration", async () => {
    const { result: res, lines } = await linesWrittenBy(() => api("GET", "/v1/nothing-here", { headers: { "X-Request-Id": "req-log-1" }, env: { LOG_LEVEL: "info" } }));
    expect(res.status, show(res)).toBe(404);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.method).toBe("log");
    const { durationMs, ...rest } = lines[0]!.line;
    expect(rest).toEqual({ level: "info", requestId: "req-log-1", method: "GET", path: "/v1/nothing-here", status: 404 });
    expect(durationMs).toEqual(expect.any(Number));
  });

  it("at warn and at off: none for the same request, which is answered the same", async () => {
    for (const level of ["warn", "off"]) {
      const { result: res, lines } = await linesWrittenBy(() => api("GET", "/v1/nothing-here", { env: { LOG_LEVEL: level } }));
      expect(res.status, level).toBe(404);
      expect(lines, level).toEqual([]);
    }
  });
});
