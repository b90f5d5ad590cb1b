import { z } from "@hono/zod-openapi";
import { base64UrlEncode } from "./base64url";
import { ApiError } from "./errors";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** `?limit=` of every list endpoint: 1..100, 20 by default. */
export const LimitQuery = z.coerce
  .number()
  .int()
  .min(1)
  .max(MAX_PAGE_SIZE)
  .default(DEFAULT_PAGE_SIZE)
  .openapi({ param: { name: "limit", in: "query" }, example: DEFAULT_PAGE_SIZE });

export const CursorQuery = z
  .string()
  .max(512)
  .optional()
  .openapi({ param: { name: "cursor", in: "query" }, description: "Opaque cursor from a previous page's nextCursor" });

export const PaginationQuery = z.object({ limit: LimitQuery, cursor: CursorQuery });

/** A page of items and the cursor of the next page (null on the last page). */
export function pageSchema<T extends z.ZodType>(item: T, name: string) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() }).openapi(name);
}

/**
 * Cursors are opaque to clients: base64url of a JSON array of the sort key of the last item.
 * Keyset pagination on that key gives pages without gaps or repeats while rows are inserted.
 */
export function encodeCursor(key: readonly (string | number)[]): string {
  return base64UrlEncode(new TextEncoder().encode(JSON.stringify(key)));
}

/** Decodes a cursor made by `encodeCursor` with `arity` parts; a tampered cursor is a 400 on `cursor`. */
export function decodeCursor(cursor: string, arity: number): string[] {
  try {
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    const parts: unknown = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0))));
    if (Array.isArray(parts) && parts.length === arity && parts.every((p) => typeof p === "string" || typeof p === "number")) {
      return parts.map(String);
    }
  } catch {
    // fall through to the one error below
  }
  throw new ApiError("bad_request", "Invalid cursor", [{ field: "cursor", message: "is not a cursor this endpoint issued" }]);
}

/** Splits `limit + 1` fetched rows into a page and its next cursor. */
export function toPage<Row, Item>(rows: Row[], limit: number, item: (row: Row) => Item, key: (row: Row) => (string | number)[]) {
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return { items: pageRows.map(item), nextCursor: more && last !== undefined ? encodeCursor(key(last)) : null };
}
