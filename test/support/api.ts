import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { sign } from "hono/jwt";
import type { Env } from "../../src/env";
import type { Role } from "../../src/lib/auth";
import worker from "../../src/index";
import { consistentFetch } from "../../src/client/http";
import { readRegionsOn } from "../../src/lib/consistency";

/** A caller: a user id with a role, or a raw Authorization header value (for bad-token cases). */
export type As = { userId: string; role?: Role } | { authorization: string };

export { newId } from "./ids";

/** A signed token for `userId`, valid for `ttlSeconds` (negative makes it expired). */
export async function tokenFor(userId: string, role: Role = "user", ttlSeconds = 600, extra: Record<string, unknown> = {}) {
  const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
  return sign({ sub: userId, role, exp, ...extra }, (env as unknown as Env).JWT_SECRET, "HS256");
}

export type ApiResponse<T = any> = { status: number; body: T; headers: Headers };

/**
 * Calls the Worker as a client would. With `env` overrides the Worker's default export runs
 * in-process with those bindings (used to point it at an outage-simulating bridge or proxy), and
 * `answered` is called as its answer comes back, before the request's `waitUntil` work is awaited.
 */
export async function api<T = any>(
  method: string,
  path: string,
  options: { as?: As; body?: unknown; headers?: Record<string, string>; env?: Partial<Env>; answered?: () => void } = {},
): Promise<ApiResponse<T>> {
  const headers = new Headers(options.headers);
  if (options.as) {
    headers.set("Authorization", "authorization" in options.as ? options.as.authorization : `Bearer ${await tokenFor(options.as.userId, options.as.role)}`);
  }
  if (options.body !== undefined) headers.set("Content-Type", "application/json");
  const request = new Request(`http://edge.test${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body),
  });
  let response: Response;
  if (options.env) {
    const ctx = createExecutionContext();
    response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...(env as unknown as Env), ...options.env }, ctx);
    options.answered?.(); // before its `waitUntil` work is waited for
    await waitOnExecutionContext(ctx);
  } else {
    response = await (readRegionsOn(env as unknown as Env) ? carryingToken(request) : SELF.fetch(request));
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: body as T, headers: response.headers };
}

/**
 * Where the Worker's own databases have read regions (the workers-far project), the tests are one
 * app built on `community-edge/client`: the client's own `consistentFetch` keeps the newest
 * `X-Consistency-Token` any answer carried and sends it on every call, whichever user makes it —
 * the model sees every write, so every read must too. Elsewhere no answer carries one.
 */
const carryingToken = consistentFetch((request) => SELF.fetch(request));

/** Formats a response for assertion messages, so a failure shows what the Worker said. */
export function show(res: ApiResponse): string {
  return `${res.status} ${JSON.stringify(res.body)}`;
}
