import { createMiddleware } from "hono/factory";
import type { EventBus } from "./events";
import type { AppEnv } from "./context";
import { createServices } from "./services";
import { log } from "./log";

const INCOMING_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives every request an id (the caller's `X-Request-Id` when well-formed), echoes it, builds the
 * request's services, and writes one structured JSON log line when the response is ready.
 */
export function requestContext(events: EventBus) {
  return createMiddleware<AppEnv>(async function requestContext(c, next) {
    const started = Date.now();
    const incoming = c.req.header("X-Request-Id");
    const requestId = incoming && INCOMING_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    c.set("requestId", requestId);
    const { services, close } = createServices(c.env, c.executionCtx, events);
    c.set("services", services);
    try {
      await next();
    } finally {
      c.executionCtx.waitUntil(close());
      c.header("X-Request-Id", requestId);
      log.info({
        requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        durationMs: Date.now() - started,
        userId: c.get("caller")?.userId,
      });
    }
  });
}
