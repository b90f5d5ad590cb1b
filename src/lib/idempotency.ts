import { z } from "@hono/zod-openapi";

/** How long an Idempotency-Key is remembered: a retry within this window is applied once. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/**
 * The optional `Idempotency-Key` request header of retryable service writes. Hono hands headers to
 * the validator lower-cased, so the object key is lower-case too.
 */
export const IdempotencyKeyHeaders = z.object({
  "idempotency-key": z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,64}$/, "must be 1–64 characters of A-Z a-z 0-9 . _ : -")
    .optional()
    .openapi({ description: "Retries with the same key within 24 h are applied once and answered the same" }),
});
