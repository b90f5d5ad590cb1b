/**
 * Big-account crossings for the safety tests, as test/feed/big.test.ts drives them: the authors get
 * a flushed followers counter far above anything other files set (10⁹) and the per-minute scan runs
 * with a threshold of 9·10⁸, instead of following an author ten thousand times.
 */
import { env } from "cloudflare:test";
import { queryRows } from "../../src/counters/store";
import type { Env } from "../../src/env";
import { feedKeys } from "../../src/feed/keys";
import { feedBigAccountsTask } from "../../src/feed/tasks";
import { redisAt } from "../../src/lib/redis";
import { topologyOf } from "../../src/lib/redis-topology";
import { servicesFor } from "../counters/support";
import { eventually } from "../feed/support";

export const BIG_THRESHOLD = "900000000";
export const BIG_FOLLOWERS = 1_000_000_000;

/** Sets the authors' flushed followers counter (no scan). */
export async function setFollowers(authors: string[], followers: number): Promise<void> {
  const { services, close } = servicesFor();
  try {
    await queryRows(
      services.db,
      `INSERT INTO counters (entity, entity_id, field, value) SELECT 'user', unnest($1::bigint[]), 'followers', $2
       ON CONFLICT (entity, entity_id, field) DO UPDATE SET value = excluded.value`,
      [authors, followers],
    );
  } finally {
    await close();
  }
}

/** Runs the per-minute big-account scan (BIG_ACCOUNT_FOLLOWERS = BIG_THRESHOLD) until it claims nothing more. */
export async function scanBigAccounts(): Promise<void> {
  const { services, close } = servicesFor({ BIG_ACCOUNT_FOLLOWERS: BIG_THRESHOLD });
  try {
    for (let runs = 0; runs < 10; runs++) if (((await feedBigAccountsTask.run(services)) as { transitions: number }).transitions === 0) break;
  } finally {
    await close();
  }
}

/** The `feed:big` state of each author (null: normal) on every database, as one list per database. */
export async function bigStates(authors: string[]): Promise<(string | null)[][]> {
  const n = topologyOf(env as unknown as Env).n;
  return Promise.all(
    Array.from({ length: n }, async (_, index) => {
      const states = await redisAt(env as unknown as Env, index).hmget<Record<string, string | null>>(feedKeys.bigStates(), ...authors);
      return authors.map((a) => states?.[a] ?? null);
    }),
  );
}

/** Moves the authors across the threshold (`big`: up to 10⁹ followers; `normal`: down to 100) and waits for the transitions' end. */
export async function makeBig(authors: string[], to: "big" | "normal"): Promise<void> {
  await setFollowers(authors, to === "big" ? BIG_FOLLOWERS : 100);
  await scanBigAccounts();
  await eventually(() => bigStates(authors), (perDatabase) => perDatabase.every((states) => states.every((s) => s === (to === "big" ? "big" : null))), 30_000);
}
