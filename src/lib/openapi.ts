import { OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "./context";
import { ApiError, ERROR_STATUS, ErrorBodySchema, errorBody, type ErrorCode } from "./errors";

/** A field-by-field account of a failed validation, used as `error.details`. */
export type FieldError = { field: string; message: string };

/**
 * Validation failures become one 400 naming every bad field; the handler never runs, so bad input
 * changes nothing.
 */
export function validationHook(result: { target: string; success: boolean; error?: z.ZodError }, _c: Context) {
  if (result.success || !result.error) return;
  const details: FieldError[] = result.error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.join(".") : result.target,
    message: issue.message,
  }));
  const fields = [...new Set(details.map((d) => d.field))].join(", ");
  throw new ApiError("bad_request", `Invalid ${fields}`, details);
}

/** A router whose routes feed the OpenAPI document and share the validation hook. */
export function newRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}

export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { content: { "application/json": { schema } }, description };
}

export function jsonBody<T extends z.ZodType>(schema: T) {
  return { body: { content: { "application/json": { schema } }, required: true } };
}

const ERROR_DESCRIPTIONS: Record<ErrorCode, string> = {
  bad_request: "Invalid input; details name the fields",
  unauthorized: "Missing, invalid or expired token",
  forbidden: "Not allowed for this caller",
  blocked: "A block stands between the caller and this user (code `blocked`); nothing changed",
  suspended: "The caller's account is suspended (code `suspended`); nothing changed",
  not_found: "No such resource",
  method_not_allowed: "The path exists but not with this method; see Allow",
  conflict: "Conflicts with the current state",
  account_deleting: "The account is being deleted; the id is a new, empty user once that finishes",
  payload_too_large: "Request body over 64 KB",
  rate_limited: "Too many requests; see Retry-After",
  internal: "Unexpected failure",
  unavailable: "A backing service is unavailable",
};

const ERROR_EXAMPLE_DETAILS: Partial<Record<ErrorCode, unknown>> = {
  bad_request: [{ field: "limit", message: "Too big: expected number to be <=100" }],
};

/**
 * Documented error responses of a route, each with an example envelope of its own code. Codes
 * sharing a status (`forbidden`, `blocked`) share one response: both described, the first's example.
 */
export function errorResponses(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, [code, ...others]]) => [
      status,
      {
        description: [code!, ...others].map((c) => ERROR_DESCRIPTIONS[c]).join("; or: "),
        content: { "application/json": { schema: ErrorBodySchema, example: errorBody(code!, ERROR_DESCRIPTIONS[code!], ERROR_EXAMPLE_DETAILS[code!]) } },
      },
    ]),
  );
}

/** Marks a route as needing the bearer JWT in the OpenAPI document. */
export const bearerAuth = [{ bearerAuth: [] }];
