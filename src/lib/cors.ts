import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "./context";
import { log } from "./log";

/**
 * Cross-origin access for web pages (`CORS_ORIGINS`), on Hono's `cors` middleware.
 *
 * `CORS_ORIGINS` is a comma-separated list of origins: `https://app.example.com`, a port wildcard
 * `http://localhost:*` (any port, or none), or `*` (any origin: safe here because the API never
 * reads cookies, so no request carries ambient credentials). Empty or unset: no cross-origin access.
 */

/** Request headers the API reads (besides the CORS-safelisted ones); a preflight allows them. */
export const CORS_ALLOW_HEADERS = ["authorization", "content-type", "idempotency-key", "x-request-id", "x-consistency-token"];
/** Response headers a client reads; a browser hides all but the safelisted ones unless exposed. */
export const CORS_EXPOSE_HEADERS = ["retry-after", "idempotent-replayed", "x-request-id", "allow", "x-consistency-token"];
export const CORS_ALLOW_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE"];
/**
 * How long a browser may reuse a preflight's answer (s): one preflight per route and browser per
 * 2 hours (Chromium caps it at 7,200 s, Firefox at 86,400 s).
 */
export const CORS_MAX_AGE_SECONDS = 7_200;

/** An allow-list parsed from `CORS_ORIGINS`: `match(origin)` is what to answer in Access-Control-Allow-Origin. */
export interface OriginPolicy {
  /** The Access-Control-Allow-Origin value for this request's `Origin`, or null when it is not allowed. */
  match(origin: string): string | null;
  /** Entries that are not origins (ignored; logged once per isolate). */
  readonly invalid: readonly string[];
}

const ORIGIN_PATTERN = /^(https?):\/\/([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(\d{1,5}|\*))?$/;

/** Parses `CORS_ORIGINS`. Entries are compared case-insensitively; a trailing slash is ignored. */
export function parseOriginList(list: string | undefined): OriginPolicy {
  const exact = new Set<string>();
  const anyPort = new Set<string>(); // "scheme://host" whose port may be anything
  const invalid: string[] = [];
  let any = false;
  for (const raw of (list ?? "").split(",")) {
    const entry = raw.trim().toLowerCase().replace(/\/$/, "");
    if (!entry) continue;
    if (entry === "*") {
      any = true;
      continue;
    }
    const m = entry.match(ORIGIN_PATTERN);
    if (!m) invalid.push(raw.trim());
    else if (m[3] === "*") anyPort.add(`${m[1]}://${m[2]}`);
    else exact.add(entry);
  }
  return {
    invalid,
    match(origin) {
      if (any) return "*";
      const normalized = origin.toLowerCase();
      if (exact.has(normalized)) return origin;
      const m = normalized.match(ORIGIN_PATTERN);
      if (m && m[3] !== "*" && anyPort.has(`${m[1]}://${m[2]}`)) return origin;
      return null;
    },
  };
}

/** One parsed policy per distinct `CORS_ORIGINS` value: parsed once per isolate, not per request. */
const policies = new Map<string, OriginPolicy>();
export function originPolicy(list: string | undefined): OriginPolicy {
  const key = list ?? "";
  let policy = policies.get(key);
  if (!policy) {
    policy = parseOriginList(key);
    if (policy.invalid.length > 0) {
      log.error({ message: "CORS_ORIGINS entries that are not origins are ignored", entries: policy.invalid });
    }
    policies.set(key, policy);
  }
  return policy;
}

/**
 * CORS for the whole API. Goes before everything that can refuse or look anything up: a preflight
 * (`OPTIONS`, with `Access-Control-Request-Method`) from an allowed origin is answered 204 here,
 * before authentication, rate limits, Redis or Postgres; every other answer to an allowed origin,
 * errors included, carries `Access-Control-Allow-Origin` (Hono copies the headers set here onto
 * the response the handler or `onError` builds).
 *
 * Hono's `cors` covers allowed origins. It is not handed the others because it would still add
 * `Access-Control-Expose-Headers` (and, to a preflight, the allowed methods and headers) whatever
 * the origin: a disallowed origin, or none, gets no CORS header at all and is served exactly as it
 * would be without `Origin`. Every answer carries `Vary: Origin`, so a shared cache never gives one
 * origin's answer to another. WebSocket upgrades are left to `requireAllowedSocketOrigin`
 * (src/lib/sockets.ts): CORS does not apply to them.
 */
export function corsPolicy(): MiddlewareHandler<AppEnv> {
  const allowed = cors({
    origin: (origin, c) => originPolicy(c.env.CORS_ORIGINS).match(origin),
    allowMethods: CORS_ALLOW_METHODS,
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
  });
  return async function corsPolicy(c, next) {
    const origin = c.req.header("Origin");
    const isUpgrade = c.req.header("Upgrade")?.toLowerCase() === "websocket";
    if (origin && !isUpgrade && originPolicy(c.env.CORS_ORIGINS).match(origin)) return allowed(c, next);
    await next();
    c.header("Vary", "Origin", { append: true });
  };
}
