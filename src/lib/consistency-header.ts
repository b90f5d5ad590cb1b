import type { MiddlewareHandler } from "hono";
import { ConsistencyScope, readRegionsOn, runInScope } from "./consistency";
import { CONSISTENCY_TOKEN_HEADER, MalformedConsistencyTokenError, parseConsistencyToken, type SyncTokens } from "./consistency-token";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";

/**
 * Reads `X-Consistency-Token` and runs the rest of the request in its scope, then answers the
 * merged token when the request wrote. After CORS (a 400 carries its headers), before anything
 * that reads Redis. Off, it only reads one binding.
 */
export function consistencyTokens(): MiddlewareHandler<AppEnv> {
  return async function consistencyTokens(c, next) {
    if (!readRegionsOn(c.env)) return next();
    const header = c.req.header(CONSISTENCY_TOKEN_HEADER);
    let sent: SyncTokens = [];
    if (header !== undefined) {
      try {
        sent = parseConsistencyToken(header);
      } catch (err) {
        if (!(err instanceof MalformedConsistencyTokenError)) throw err;
        throw new ApiError("bad_request", `Malformed ${CONSISTENCY_TOKEN_HEADER}: send back the value an earlier answer carried`, [
          { field: CONSISTENCY_TOKEN_HEADER, message: err.message },
        ]);
      }
    }
    const scope = new ConsistencyScope(sent);
    await runInScope(scope, next);
    const answer = scope.answer();
    if (answer) c.header(CONSISTENCY_TOKEN_HEADER, answer);
  };
}
