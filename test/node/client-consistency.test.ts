/**
 * `X-Consistency-Token` as the typed client carries it (src/client/http.ts `consistentFetch`) and
 * its format (src/lib/consistency-token.ts), on a fake `fetch`. Through the Worker and the stack:
 * test/platform/consistency.test.ts.
 */
import { describe, expect, it } from "vitest";
import { createClient } from "community-edge/client";
import {
  formatConsistencyToken,
  MAX_CONSISTENCY_TOKEN_CHARS,
  mergeSyncTokens,
  newerSyncToken,
  parseConsistencyToken,
} from "../../src/lib/consistency-token";

const HEADER = "X-Consistency-Token";

/** A client on a fake server that answers each request with the next of `answers` as its token (null: none). */
function clientAnswering(answers: (string | null)[]) {
  const sent: (string | null)[] = [];
  const fetch = async (request: Request) => {
    sent.push(request.headers.get(HEADER));
    const token = answers.shift() ?? null;
    return new Response(JSON.stringify({ ok: true }), { status: 200, headers: { "content-type": "application/json", ...(token ? { [HEADER]: token } : {}) } });
  };
  return { api: createClient({ baseUrl: "https://edge.test", fetch }), sent };
}

const token = (tokens: (string | undefined)[]) => formatConsistencyToken(tokens)!;

describe("consistency token format", () => {
  it("round-trips the sync token of each database, any printable characters", () => {
    const tokens = ["3f1a:120", undefined, "a/b+c=d~e", "local:7"];
    const header = token(tokens);
    expect(header).toMatch(/^v1(\.\d+~[A-Za-z0-9_-]+)+$/);
    expect(parseConsistencyToken(header)).toEqual(tokens);
    expect(formatConsistencyToken([])).toBeUndefined();
  });

  it.each([
    ["", "no version"],
    ["v1", "no entry"],
    ["v2.0~MTI", "another version"],
    ["v1.0~MTI.0~MTM", "a database twice"],
    ["v1.01~MTI", "a leading zero"],
    ["v1.256~MTI", "a database past 255"],
    ["v1.0~", "an empty token"],
    ["v1.0~M TI", "a space"],
    ["v1.0~MTI=", "padding"],
    ["v1.0~" + btoa("a b"), "a decoded space"],
    ["v1.0~" + "A".repeat(MAX_CONSISTENCY_TOKEN_CHARS), "too long"],
  ])("refuses %j (%s)", (value) => {
    expect(() => parseConsistencyToken(value)).toThrow();
  });

  it("keeps the newest sync token: the larger count of one history, else the one seen later", () => {
    expect(newerSyncToken("r1:90", "r1:100")).toBe("r1:100");
    expect(newerSyncToken("r1:100", "r1:90")).toBe("r1:100");
    expect(newerSyncToken("12", "9")).toBe("12");
    expect(newerSyncToken("r1:100", "r2:5"), "another history (a failover): the later").toBe("r2:5");
    expect(newerSyncToken(undefined, "x")).toBe("x");
    expect(mergeSyncTokens(["r:5", "r:9"], [undefined, "r:7", "r:1"])).toEqual(["r:5", "r:9", "r:1"]);
  });
});

describe("the client carries the newest token", () => {
  it("sends nothing until an answer carries a token, then sends it on every request", async () => {
    const written = token(["r:10"]);
    const { api, sent } = clientAnswering([null, written, null, null]);
    await api.GET("/v1/me/badges");
    await api.PUT("/v1/me/following/{userId}", { params: { path: { userId: "2" } } });
    await api.GET("/v1/me/badges");
    await api.GET("/v1/me/badges");
    expect(sent).toEqual([null, null, written, written]);
  });

  it("merges per database and never goes back to an older token", async () => {
    const { api, sent } = clientAnswering([token(["r:10"]), token([undefined, "s:4"]), token(["r:8"]), null]);
    for (let i = 0; i < 4; i++) await api.GET("/v1/me/badges");
    expect(sent.slice(1).map((h) => (h ? parseConsistencyToken(h) : h))).toEqual([["r:10"], ["r:10", "s:4"], ["r:10", "s:4"]]);
  });

  it("is per client: another client (a second device) has seen nothing", async () => {
    const first = clientAnswering([token(["r:10"]), null]);
    const second = clientAnswering([null]);
    await first.api.POST("/v1/posts", { body: { text: "hi" } });
    await first.api.GET("/v1/me/badges");
    await second.api.GET("/v1/me/badges");
    expect(first.sent).toEqual([null, token(["r:10"])]);
    expect(second.sent).toEqual([null]);
  });

  it("passes on a token it cannot read as it came", async () => {
    const { api, sent } = clientAnswering(["v9.something-new", null]);
    await api.GET("/v1/me/badges");
    await api.GET("/v1/me/badges");
    expect(sent).toEqual([null, "v9.something-new"]);
  });
});
