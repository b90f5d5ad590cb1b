import { z } from "@hono/zod-openapi";

const MAX_INT64 = 9223372036854775807n;

/** True when `value` is a positive 64-bit integer written in canonical decimal. */
export function isId(value: string): boolean {
  return /^[1-9][0-9]{0,18}$/.test(value) && BigInt(value) <= MAX_INT64;
}

/** IDs are positive 64-bit integers carried as decimal strings (JSON numbers lose precision past 2^53). */
export const IdSchema = z
  .string()
  .refine(isId, { message: "must be a positive 64-bit integer as a decimal string" })
  .openapi({ example: "42", pattern: "^[1-9][0-9]{0,18}$" });

/** A path parameter that is an id, documented under `name`. */
export function idParam(name: string) {
  return IdSchema.openapi({ param: { name, in: "path" }, example: "42" });
}

/** Comma-separated ids in a query string, deduplicated, at most `max`. */
export function idListQuery(max: number) {
  return z
    .string()
    .transform((raw, ctx) => {
      const ids = [...new Set(raw.split(",").map((s) => s.trim()).filter(Boolean))];
      if (ids.length === 0) ctx.addIssue({ code: "custom", message: "must list at least one id" });
      if (ids.length > max) ctx.addIssue({ code: "custom", message: `must list at most ${max} ids` });
      const bad = ids.find((id) => !isId(id));
      if (bad !== undefined) ctx.addIssue({ code: "custom", message: `"${bad}" is not a positive 64-bit integer` });
      return ids;
    })
    .openapi({ type: "string", example: "1,2,3", description: `Comma-separated ids, at most ${max}` });
}
