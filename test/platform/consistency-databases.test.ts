/**
 * `X-Consistency-Token` at N = 3 (src/lib/consistency.ts): one sync token per database written,
 * and each database's token sent to that database only. Each database behind a private bridge, so
 * what a request carried is seen without other files' traffic. N = 1: consistency.test.ts.
 */
import { expect, it } from "vitest";
import type { Env } from "../../src/env";
import { parseConsistencyToken } from "../../src/lib/consistency-token";
import { issuedToken } from "../support/consistency";
import { api, newId, show } from "../support/api";
import { describeAtN3, newIdOn, useChaosDatabases } from "../support/databases";

const HEADER = "X-Consistency-Token";

describeAtN3("X-Consistency-Token over three databases", () => {
  const databases = useChaosDatabases();
  const on = () => ({ ...databases.env, REDIS_READ_REGIONS: "on" }) satisfies Partial<Env>;

  it("a write to several databases answers the sync token of each", async () => {
    const [me, them] = [newIdOn(1, 3), newIdOn(2, 3)];
    const res = await api("PUT", `/v1/me/following/${them}`, { as: { userId: me }, env: on() });
    expect(res.status, show(res)).toBe(200);
    const tokens = parseConsistencyToken(res.headers.get(HEADER)!);
    expect(tokens[1], "the follower's database").toMatch(/^local:\d+$/);
    expect(tokens[2], "the followee's database").toMatch(/^local:\d+$/);
  });

  it("each database is sent its own token, never another's", async () => {
    const probes = [0, 1, 2].map((i) => `probe${i}:${newId()}`);
    const me = newIdOn(1, 3);
    const res = await api("GET", "/v1/me/badges", { as: { userId: me }, env: on(), headers: { [HEADER]: await issuedToken(on(), probes) } });
    expect(res.status, show(res)).toBe(200);
    const seen = await Promise.all(databases.pairs.map(async (pair) => (await pair.stats()).syncTokens));
    expect(seen[1], "the caller's database waits for its token").toContain(probes[1]);
    seen.forEach((tokens, index) => {
      for (const [other, probe] of probes.entries()) if (other !== index) expect(tokens, `database ${index}`).not.toContain(probe);
    });
  });
});
