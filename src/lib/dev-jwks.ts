import type { Hono } from "hono";
import type { AppEnv } from "./context";

/** Where `npm run dev` serves its own JWKS (and points JWT_JWKS_URL), so the provider path works with no account anywhere. */
export const DEV_JWKS_PATH = "/.well-known/dev-jwks.json";

/**
 * Serves `DEV_JWKS` (public keys only; `npm run dev` sets it from keys under its data directory)
 * when ENVIRONMENT is `development` and DEV_JWKS is set. A deployment sets neither DEV_JWKS nor
 * anything that would make this route exist: there it is a 404 like any unknown path.
 */
export function mountDevJwks(app: Hono<AppEnv>) {
  app.get(DEV_JWKS_PATH, async (c, next) => {
    if (c.env.ENVIRONMENT !== "development" || !c.env.DEV_JWKS) return next();
    return c.body(c.env.DEV_JWKS, 200, { "Content-Type": "application/json", "Cache-Control": "max-age=300" });
  });
}
