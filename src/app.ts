import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { methodNotAllowed } from "hono/method-not-allowed";
import type { CronJobName } from "./cron";
import { DOCS_PAGE } from "./docs/page";
import { healthRoutes } from "./health/routes";
import type { AppEnv } from "./lib/context";
import { errorBody, handleError } from "./lib/errors";
import { createEventBus, type Subscriber } from "./lib/events";
import { validationHook } from "./lib/openapi";
import { requestContext } from "./lib/request-context";
import type { CronTask } from "./scheduled";
import { socialRoutes } from "./social/routes";
import { badgesRepairTask } from "./badges/repair";
import { badgesRoutes } from "./badges/routes";
import { badgesSubscriber } from "./badges/subscriber";
import { countersRoutes } from "./counters/routes";
import { countersSubscriber } from "./counters/subscriber";
import { flushCountersTask, reconcileCountersTask, reconcileSliceTask, trimTrendingTask } from "./counters/tasks";
import { feedRoutes, trendingRoutes } from "./feed/routes";
import { feedSubscriber } from "./feed/subscriber";
import { feedBigAccountsTask, feedTombstoneTask } from "./feed/tasks";
import { liveRoutes } from "./live/routes";

/** Capabilities that react to relation changes (counters, badges, feeds). */
export const subscribers: readonly Subscriber[] = [countersSubscriber, badgesSubscriber, feedSubscriber];

/** Scheduled work by cron job. */
export const cronTasks: Record<CronJobName, readonly CronTask[]> = {
  flush: [flushCountersTask, badgesRepairTask, reconcileSliceTask, feedTombstoneTask, feedBigAccountsTask, trimTrendingTask],
  reconcile: [reconcileCountersTask],
};

export const events = createEventBus(subscribers);

/** Request bodies above this are refused (413) before anything parses them. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Builds the HTTP app: middleware, every capability's routes, the OpenAPI document and docs page. */
export function newApp() {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use("*", requestContext(events));
  app.use(
    "*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) =>
        c.json(errorBody("payload_too_large", `Request body over ${MAX_BODY_BYTES} bytes`, [{ field: "body", message: `must be at most ${MAX_BODY_BYTES} bytes` }]), 413),
    }),
  );
  // A known path asked with a method it does not serve: 405 with `Allow`, not 404.
  app.use(
    "*",
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) =>
        c.json(errorBody("method_not_allowed", `${c.req.method} is not allowed on ${c.req.path}`), 405, { Allow: methods.join(", ") }),
    }),
  );

  app.route("/", healthRoutes);
  app.route("/", trendingRoutes); // before socialRoutes: "trending" is not a post id
  app.route("/", socialRoutes);
  app.route("/", badgesRoutes);
  app.route("/", countersRoutes);
  app.route("/", liveRoutes);
  app.route("/", feedRoutes);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", { type: "http", scheme: "bearer", bearerFormat: "JWT" });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Community edge API",
      version: "1.0.0",
      description: "Counters, unread badges, follows, posts and live presence for community apps. IDs are positive 64-bit integers as decimal strings.",
    },
  });
  app.get("/docs", (c) => c.html(DOCS_PAGE));

  app.notFound((c) => c.json(errorBody("not_found", `No route for ${c.req.method} ${c.req.path}`), 404));
  app.onError(handleError);
  return app;
}
