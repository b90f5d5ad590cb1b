import { accountKeys } from "../../src/accounts/keys.js";
import { moderationKeys } from "../../src/safety/keys.js";

/**
 * The Redis keys every Worker isolate reads on its own clock: its admission copies (the deletions
 * snapshot, src/accounts/deleting.ts; the suspended set and the term list, src/safety/copy.ts),
 * refreshed every couple of seconds in the background of whichever request finds them due. The
 * test stack's bridges count requests touching only these apart (`upkeepKeys`), so a test that
 * counts what a call cost a database is not at the mercy of the wall clock.
 */
export const ISOLATE_UPKEEP_KEYS: readonly string[] = [accountKeys.deleting(), moderationKeys.suspended(), moderationKeys.terms()];
