import type { MiddlewareHandler } from "hono";
import { ConsistencyScope, readRegionsOn, runInScope } from "./consistency";
import { assertTokenSecret, signSyncTokens, verifyConsistencyToken } from "./consistency-signing";
import { CONSISTENCY_TOKEN_HEADER, MalformedConsistencyTokenError, syncTokensOf, writeConsistencyToken, type SignedSyncTokens } from "./consistency-token";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";

/**
 * Reads and verifies `X-Consistency-Token` and runs the rest of the request in its scope, then
 * answers the merged token, signed, when the request wrote. After CORS (a 400 carries its
 * headers), before anything that reads Redis. Off, it only reads one binding; on, a request without
 * a token pays nothing here until it writes (then one HMAC per database written).
 */
export function consistencyTokens(): MiddlewareHandler<AppEnv> {
  return async function consistencyTokens(c, next) {
    if (!readRegionsOn(c.env)) return next();
    // Refused before any work: a write done and then left without its token would be worse.
    assertTokenSecret(c.env);
    const header = c.req.header(CONSISTENCY_TOKEN_HEADER);
    let sent: SignedSyncTokens = [];
    if (header !== undefined) {
      try {
        sent = await verifyConsistencyToken(c.env, header);
      } catch (err) {
        if (!(err instanceof MalformedConsistencyTokenError)) throw err;
        throw new ApiError("bad_request", `Malformed ${CONSISTENCY_TOKEN_HEADER}: send back the value an earlier answer carried`, [
          { field: CONSISTENCY_TOKEN_HEADER, message: err.message },
        ]);
      }
    }
    const scope = new ConsistencyScope(syncTokensOf(sent));
    await runInScope(scope, next);
    const answer = scope.answer();
    if (answer) c.header(CONSISTENCY_TOKEN_HEADER, writeConsistencyToken(await signSyncTokens(c.env, answer, sent)));
  };
}
