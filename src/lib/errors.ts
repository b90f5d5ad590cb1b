import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { log } from "./log";

/** Every error the API answers with, and its HTTP status. */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  /** A block stands between the caller and the user acted on (either one blocked the other). */
  blocked: 403,
  /** The caller's account is suspended by an operator: every request with their token is refused. */
  suspended: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  /** The caller's account is being deleted (src/accounts): every route refuses their token until it is done. */
  account_deleting: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** A failure the caller should see as-is: code, message, optional details and headers. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }
  get status(): ContentfulStatusCode {
    return ERROR_STATUS[this.code];
  }
}

/** A dependency (Redis, Postgres) could not be reached; answered as 503 `unavailable`. */
export class DependencyUnavailableError extends ApiError {
  constructor(
    readonly dependency: "redis" | "postgres",
    cause?: unknown,
  ) {
    super("unavailable", `${dependency === "redis" ? "Redis" : "Postgres"} is unavailable; retry shortly`);
    this.cause = cause;
  }
}

export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .openapi("Error");

export function errorBody(code: ErrorCode, message: string, details?: unknown) {
  return { error: { code, message, ...(details === undefined ? {} : { details }) } };
}

/** The general code of each status (the first listed: `forbidden`, not `blocked`, for a bare 403; `conflict`, not `account_deleting`, for a 409). */
const CODE_BY_STATUS: Record<number, ErrorCode> = Object.fromEntries(
  Object.entries(ERROR_STATUS)
    .reverse()
    .map(([code, status]) => [status, code as ErrorCode]),
);

/** The one place thrown errors become responses. Unknown errors are logged and never leak a stack. */
export function handleError(err: Error, c: Context): Response {
  if (err instanceof ApiError) {
    if (err.status >= 500) logFailure(c, err);
    return c.json(errorBody(err.code, err.message, err.details), err.status, err.headers);
  }
  if (err instanceof HTTPException) {
    const code = CODE_BY_STATUS[err.status] ?? (err.status >= 500 ? "internal" : "bad_request");
    const status = ERROR_STATUS[code];
    return c.json(errorBody(code, err.message || code.replace("_", " ")), status);
  }
  if (isDependencyFailure(err)) {
    logFailure(c, err);
    return c.json(errorBody("unavailable", "A backing service is unavailable; retry shortly"), 503);
  }
  logFailure(c, err);
  return c.json(errorBody("internal", "Internal error"), 500);
}

/**
 * Network-level failures of Postgres (Neon driver) or Redis (Upstash REST), however wrapped
 * (drizzle wraps driver errors as "Failed query" with the driver's error as `cause`).
 */
export function isDependencyFailure(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    // Redis refusing a command is our bug, not an outage.
    if (isRedisCommandError(e)) return false;
    // The Neon driver rejects with the WebSocket's error Event when it cannot reach the server.
    if (typeof Event !== "undefined" && e instanceof Event) return true;
    const code = (e as { code?: unknown }).code;
    // SQLSTATE class 08 (connection exception), 57P0x (server shutting down), 53300 (too many connections).
    if (typeof code === "string" && /^(08|57P0|53300)/.test(code)) return true;
    // Neon's HTTP path: the fetch itself failed (`sourceError`), or its endpoint answered 5xx.
    if (e instanceof Error && e.name === "NeonDbError" && ((e as { sourceError?: unknown }).sourceError !== undefined || /^Server error \(HTTP status 5\d\d\)/.test(e.message))) return true;
    const text = e instanceof Error ? `${e.name} ${e.message}` : typeof e === "object" ? `${(e as { type?: string }).type ?? ""} ${(e as { message?: string }).message ?? ""}` : String(e);
    if (CONNECTION_FAILURE.test(text)) return true;
  }
  return false;
}

const CONNECTION_FAILURE =
  /ECONNREFUSED|ECONNRESET|timed? ?out|WebSocket|Connection terminated|connection (closed|refused|error)|fetch failed|network|socket|UpstashError|Failed to fetch|Network connection lost/i;

function logFailure(c: Context, err: Error) {
  log.error({
    requestId: c.get("requestId"),
    method: c.req.method,
    path: c.req.path,
    error: err.name,
    message: err.message,
    cause: describeCause(err.cause),
  });
}

function describeCause(cause: unknown): string | undefined {
  if (cause === undefined) return undefined;
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  if (typeof Event !== "undefined" && cause instanceof Event) return `${cause.constructor.name} ${cause.type}`;
  try {
    return JSON.stringify(cause);
  } catch {
    return String(cause);
  }
}

/**
 * Redis answered that a command or script failed: a key of the wrong type, a script error, a
 * malformed command. That is our bug, never an outage — falling back (to Postgres, to zeros) would
 * hide it, and falling back after a script half-ran could apply a change twice. Answered as 500.
 */
export function isRedisCommandError(err: unknown): boolean {
  return err instanceof Error && REDIS_COMMAND_ERROR.test(err.message);
}

const REDIS_COMMAND_ERROR =
  /user_script|Error running script|Error compiling script|WRONGTYPE|wrong number of arguments|unknown command|syntax error|not an integer|not a valid float|NOSCRIPT/i;
