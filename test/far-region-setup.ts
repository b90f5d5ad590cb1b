/**
 * Global setup of the workers-far project (vitest.config.ts): the model tests again with the
 * Worker and the tests FAR_MODEL_MS (TEST_FAR_MODEL_MS, default 30) ms round trip from the primary
 * region, over a stack of their own whose databases are read regions (docs/regions.md, "Local
 * far-region stack"), `REDIS_READ_REGIONS = on`.
 *
 * vitest runs a project's global setup only when the run has files of that project, and the
 * root's last: this one only asks the root's (test/global-setup.ts) to start that stack too, which
 * hands it to this project as `farStack`. It starts nothing itself: it is loaded through the Workers
 * project's module runner, where the stack's Node packages do not resolve as they do in Node (a
 * stack started here never saw its redis-server answer).
 */
const WANTED = "TEST_FAR_STACK_WANTED";

/** Round trip to the primary: small enough to keep CI fast. */
export const FAR_MODEL_MS = Number(process.env.TEST_FAR_MODEL_MS ?? 30);
/**
 * How much later than a write's answer its replica applies it (each way; the stack's
 * `farReplicationLagMs`). Without it a replica and the answer both take R/2 and a read right after
 * a write nearly always found it, token or not: the counters model passed with the token left out.
 */
export const FAR_MODEL_LAG_MS = Number(process.env.TEST_FAR_MODEL_LAG_MS ?? 20);

/** Whether this run has workers-far files (this setup ran before the root's). */
export function farStackWanted(): boolean {
  return process.env[WANTED] === "1";
}

export default function setup(): void {
  process.env[WANTED] = "1";
}
