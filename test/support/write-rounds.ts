/**
 * Primary rounds of one call on its request path, counted from the Worker's side: the write-class
 * Upstash requests (what a Global database forwards to its primary, `writesData`) sent before the
 * answer came back, in runs of overlapping ones (`countRounds`, the rule `bench:geo` counts with) on
 * the recording's own clock — requests sent before any of them was answered are one round, however
 * their answers are ordered. Runs the Worker in this isolate with `env`, so only the requests to
 * `urls` (the test's private bridges: queue consumers and other files use the stack's own) count.
 *
 * @example
 * const { rounds, sent } = await primaryRounds("POST", "/v1/posts", { as: { userId }, body: { text: "hi" }, env, urls });
 * expect(rounds, sent).toBe(1);
 */
import { countRounds, roundsText } from "../../scripts/bench/rounds";
import type { Env } from "../../src/env";
import { api, type As } from "./api";
import { recordRedisRequests } from "./redis-requests";

export async function primaryRounds(
  method: string,
  path: string,
  options: { as?: As; body?: unknown; env: Partial<Env>; urls: readonly string[] },
): Promise<{ status: number; body: any; rounds: number; sent: string }> {
  let answeredAt = Number.POSITIVE_INFINITY;
  const { result, requests } = await recordRedisRequests((tick) => api(method, path, { ...options, answered: () => (answeredAt = tick()) }), { urls: options.urls });
  const before = requests.filter((r) => r.primary && r.start < answeredAt);
  // What each request held (command, first key), for the assertion message.
  const sent = roundsText(before, (r) => `${r.path} ${r.commands.map((c) => `${c[0]} ${c[3] ?? ""}`).join(",")};`);
  return { status: result.status, body: result.body, rounds: countRounds(before), sent };
}
