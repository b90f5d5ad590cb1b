/**
 * `X-Consistency-Token` values for the workers tests: signed as the Worker signs them
 * (src/lib/consistency-signing.ts), with the secret of its bindings — the tests hold the
 * deployment's secret, as only the deployment should.
 */
import { env } from "cloudflare:test";
import type { Env } from "../../src/env";
import { signSyncTokens } from "../../src/lib/consistency-signing";
import { writeConsistencyToken, type SyncTokens } from "../../src/lib/consistency-token";

/** The header value the Worker (its bindings, with `overrides`) would answer for `tokens`. */
export async function issuedToken(overrides: Partial<Env>, tokens: SyncTokens): Promise<string> {
  return writeConsistencyToken(await signSyncTokens({ ...(env as unknown as Env), ...overrides }, tokens))!;
}
