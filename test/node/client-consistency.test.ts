/**
 * `X-Consistency-Token` as the typed client carries it (src/client/http.ts `consistentFetch`) and
 * its format (src/lib/consistency-token.ts), on a fake `fetch`. Through the Worker and the stack:
 * test/platform/consistency.test.ts.
 */
import { describe, expect, it } from "vitest";
import { createClient } from "community-edge/client";
import { signSyncTokens, verifyConsistencyToken } from "../../src/lib/consistency-signing";
import {
  MAX_CONSISTENCY_TOKEN_CHARS,
  mergeSignedSyncTokens,
  mergeSyncTokens,
  newerSyncToken,
  parseConsistencyToken,
  readConsistencyToken,
  writeConsistencyToken,
} from "../../src/lib/consistency-token";

const HEADER = "X-Consistency-Token";

/** A client on a fake server that answers each request with the next of `answers` (a token, or a whole Response). */
function clientAnswering(answers: (string | Response | null)[]) {
  const sent: (string | null)[] = [];
  const fetch = async (request: Request) => {
    sent.push(request.headers.get(HEADER));
    const answer = answers.shift() ?? null;
    if (answer instanceof Response) return answer;
    return new Response(JSON.stringify({ ok: true }), { status: 200, headers: { "content-type": "application/json", ...(answer ? { [HEADER]: answer } : {}) } });
  };
  return { api: createClient({ baseUrl: "https://edge.test", fetch }), sent };
}

/** A token as a deployment whose secret is `secret` answers it. */
const signed = async (tokens: (string | undefined)[], secret = "test secret") => writeConsistencyToken(await signSyncTokens({ CONSISTENCY_TOKEN_SECRET: secret }, tokens))!;
/** A token of the right shape whose tags are made up: the client checks no tag, only the server does. */
const token = (tokens: (string | undefined)[]) => writeConsistencyToken(tokens.map((t, i) => (t ? { token: t, tag: `${String(i).padEnd(42, "x")}A` } : undefined)))!;

describe("consistency token format", () => {
  it("round-trips the sync token of each database, any printable characters, each entry with its tag", async () => {
    const tokens = ["3f1a:120", undefined, "a/b+c=d~e", "local:7"];
    const header = await signed(tokens);
    expect(header).toMatch(/^v2(\.\d+~[A-Za-z0-9_-]+~[A-Za-z0-9_-]{43})+$/);
    expect(parseConsistencyToken(header)).toEqual(tokens);
    expect(writeConsistencyToken(readConsistencyToken(header))).toBe(header);
    expect(writeConsistencyToken([])).toBeUndefined();
  });

  const tag = "A".repeat(43);
  it.each([
    ["", "no version"],
    ["v2", "no entry"],
    ["v1.0~MTI", "the unsigned format of before"],
    ["v2.0~MTI", "no tag"],
    [`v2.0~MTI~${tag.slice(1)}`, "a tag cut short"],
    [`v2.0~MTI~${tag.slice(1)}B`, "a tag spelled two ways (its last character's spare bits set)"],
    [`v2.0~MTI~${tag}.0~MTM~${tag}`, "a database twice"],
    [`v2.01~MTI~${tag}`, "a leading zero"],
    [`v2.256~MTI~${tag}`, "a database past 255"],
    [`v2.0~~${tag}`, "an empty token"],
    [`v2.0~M TI~${tag}`, "a space"],
    [`v2.0~MTI=~${tag}`, "padding"],
    [`v2.0~${btoa("a b")}~${tag}`, "a decoded space"],
    [`v2.0~${"A".repeat(MAX_CONSISTENCY_TOKEN_CHARS)}~${tag}`, "too long"],
  ])("refuses %j (%s)", (value) => {
    expect(() => readConsistencyToken(value)).toThrow();
  });

  it("verifies only what the deployment's secret signed, entry by entry", async () => {
    const env = { CONSISTENCY_TOKEN_SECRET: "test secret" };
    const header = await signed(["r:10", "s:4"]);
    expect((await verifyConsistencyToken(env, header)).map((e) => e?.token)).toEqual(["r:10", "s:4"]);
    const [first, second] = readConsistencyToken(header);
    await expect(verifyConsistencyToken(env, writeConsistencyToken([{ ...first!, token: "r:99999999" }, second])!), "an offset moved ahead").rejects.toThrow(/database 0 was not issued/);
    await expect(verifyConsistencyToken(env, writeConsistencyToken([second, first])!), "entries swapped between databases").rejects.toThrow(/not issued/);
    await expect(verifyConsistencyToken(env, await signed(["r:10"], "another secret")), "another deployment's").rejects.toThrow(/not issued/);
    // Without a secret of its own, the key is derived from JWT_SECRET: another key than JWT_SECRET's own bytes.
    const derived = writeConsistencyToken(await signSyncTokens({ JWT_SECRET: "test secret" }, ["r:10"]))!;
    await expect(verifyConsistencyToken({ JWT_SECRET: "test secret" }, derived)).resolves.toBeTruthy();
    await expect(verifyConsistencyToken(env, derived)).rejects.toThrow(/not issued/);
    await expect(verifyConsistencyToken({ JWT_SECRET: "" }, derived)).rejects.toThrow(/neither CONSISTENCY_TOKEN_SECRET nor JWT_SECRET/);
  });

  it("keeps the newest sync token: the larger count of one history, else the one seen later", () => {
    expect(newerSyncToken("r1:90", "r1:100")).toBe("r1:100");
    expect(newerSyncToken("r1:100", "r1:90")).toBe("r1:100");
    expect(newerSyncToken("12", "9")).toBe("12");
    expect(newerSyncToken("r1:100", "r2:5"), "another history (a failover): the later").toBe("r2:5");
    expect(newerSyncToken(undefined, "x")).toBe("x");
    expect(mergeSyncTokens(["r:5", "r:9"], [undefined, "r:7", "r:1"])).toEqual(["r:5", "r:9", "r:1"]);
    const entry = (t: string) => ({ token: t, tag: `tag of ${t}` });
    expect(mergeSignedSyncTokens([entry("r:5"), entry("r:9")], [undefined, entry("r:7"), entry("r:1")])).toEqual([entry("r:5"), entry("r:9"), entry("r:1")]);
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

  it("keeps each database's entry as signed, so a merge of two answers still verifies", async () => {
    const env = { CONSISTENCY_TOKEN_SECRET: "test secret" };
    const { api, sent } = clientAnswering([await signed(["r:10"]), await signed([undefined, "s:4"]), null]);
    for (let i = 0; i < 3; i++) await api.GET("/v1/me/badges");
    expect((await verifyConsistencyToken(env, sent[2]!)).map((e) => e?.token)).toEqual(["r:10", "s:4"]);
  });

  it("drops a token the server refuses (a 400 naming the header), and keeps one refused for anything else", async () => {
    const refusal = (field: string) =>
      new Response(JSON.stringify({ error: { code: "bad_request", message: "no", details: [{ field, message: "no" }] } }), { status: 400, headers: { "content-type": "application/json" } });
    const { api, sent } = clientAnswering([token(["r:10"]), refusal("text"), null, refusal(HEADER), null]);
    for (let i = 0; i < 5; i++) await api.GET("/v1/me/badges");
    expect(sent).toEqual([null, token(["r:10"]), token(["r:10"]), token(["r:10"]), null]);
  });

  it("passes on a token it cannot read as it came", async () => {
    const { api, sent } = clientAnswering(["v9.something-new", null]);
    await api.GET("/v1/me/badges");
    await api.GET("/v1/me/badges");
    expect(sent).toEqual([null, "v9.something-new"]);
  });
});
