import { refuseIfDeleting } from "./accounts/deleting";
import { admitCallersWith } from "./lib/admission";
import { refuseSuspended } from "./safety/copy";
import { OpenAPIHono } from "@hono/zod-openapi";
import { accountsEraser } from "./accounts/erase";
import type { Eraser } from "./lib/erasers";
import { accountsRoutes } from "./accounts/routes";
import { ADMIN_APP_JS } from "./admin/app-script";
import { ADMIN_CONTENT_SECURITY_POLICY, ADMIN_CSS, ADMIN_PAGE_PATH, ADMIN_SCRIPT_PATH, ADMIN_STYLE_PATH, renderAdminPage } from "./admin/page";
import { statusHistoryTask } from "./admin/history";
import { adminRoutes } from "./admin/routes";
import { bodyLimit } from "hono/body-limit";
import { methodNotAllowed } from "hono/method-not-allowed";
import type { CronJobName } from "./cron";
import { docsAssetRoutes } from "./docs/assets";
import { DOCS_CONTENT_SECURITY_POLICY, renderDocsPage } from "./docs/page";
import { healthRoutes } from "./health/routes";
import { AppRouter } from "./lib/app-router";
import type { AppEnv } from "./lib/context";
import { errorBody, handleError } from "./lib/errors";
import { createEventBus, type Subscriber } from "./lib/events";
import { validationHook } from "./lib/openapi";
import { withExamples } from "./lib/openapi-examples";
import { corsPolicy } from "./lib/cors";
import { consistencyTokens } from "./lib/consistency-header";
import { mountDevJwks } from "./lib/dev-jwks";
import { deadLettersEraser } from "./lib/ops/erase";
import { requestContext } from "./lib/request-context";
import { socketOrigins } from "./lib/sockets";
import type { CronTask } from "./scheduled";
import { socialFollowsEraser, socialPostsEraser, socialRowsEraser } from "./social/erase";
import { socialRoutes } from "./social/routes";
import { followListsSubscriber, socialSubscriber } from "./social/subscriber";
import { liveSubscriber } from "./live/subscriber";
import { badgesEraser } from "./badges/erase";
import { badgesRepairTask } from "./badges/repair";
import { badgesRoutes } from "./badges/routes";
import { badgesSubscriber } from "./badges/subscriber";
import { countersReactionsEraser, countersValuesEraser } from "./counters/erase";
import { countersRoutes } from "./counters/routes";
import { countersSubscriber } from "./counters/subscriber";
import { flushCountersTask, reconcileCountersTask, reconcileSliceTask, trimTrendingTask } from "./counters/tasks";
import { feedEraser, feedTimelinesEraser } from "./feed/erase";
import { feedRoutes, trendingRoutes } from "./feed/routes";
import { feedSubscriber } from "./feed/subscriber";
import { feedBigAccountsTask, feedTombstoneTask, feedTrendingTask } from "./feed/tasks";
import { liveRoomsTask } from "./live/audiences";
import { liveEraser } from "./live/erase";
import { liveRoutes } from "./live/routes";
import { notifyEraser } from "./notify/erase";
import { safetyEraser, safetyReportsEraser } from "./safety/erase";
import { notifyRoutes } from "./notify/routes";
import { notifySubscriber } from "./notify/subscriber";
import { moderationRoutes } from "./safety/moderation-routes";
import { safetyRoutes } from "./safety/routes";

// Every verified caller passes these (src/lib/admission.ts), each from an isolate's snapshot (no round
// trip): a user whose account is being deleted gets 409, a suspended one 403.
admitCallersWith(refuseIfDeleting);
// Suspension is of users' accounts: service and admin tokens act for others and are not checked (nor pay the copy's refresh).
admitCallersWith(async (services, caller) => (caller.role === "user" ? refuseSuspended(services, caller.userId) : undefined));

/** Capabilities that react to relation changes (counters, badges, feeds, pushes). */
export const subscribers: readonly Subscriber[] = [socialSubscriber, followListsSubscriber, countersSubscriber, badgesSubscriber, feedSubscriber, notifySubscriber, liveSubscriber];

/** Scheduled work by cron job (the status history samples last, what the other tasks left). */
export const cronTasks: Record<CronJobName, readonly CronTask[]> = {
  flush: [flushCountersTask, badgesRepairTask, reconcileSliceTask, feedTombstoneTask, feedBigAccountsTask, trimTrendingTask, feedTrendingTask, liveRoomsTask, statusHistoryTask],
  reconcile: [reconcileCountersTask],
};

export const events = createEventBus(subscribers);

/**
 * What an account deletion runs, in this order (docs/privacy.md): each capability's eraser removes
 * its own rows and keys. Posts go first, through the delete path (tombstoned at once everywhere);
 * then, while the follows still name the followers, `feed.timelines` purges the author from every
 * follower's timeline in one pass (the posts' deletes send no removal fan-out each, so a deletion
 * costs followers + posts, not followers × posts); follows next (both users' counters through the
 * unfollow path); then what the user gave and registered; the counters of the user and their posts
 * once nothing moves them any more; dead letters naming them; the post rows after the erasers that
 * need their ids; the accounts' own keys last.
 */
export const erasers: readonly Eraser[] = [
  socialPostsEraser,
  feedTimelinesEraser,
  socialFollowsEraser,
  countersReactionsEraser,
  notifyEraser,
  safetyEraser,
  safetyReportsEraser,
  badgesEraser,
  liveEraser,
  feedEraser,
  countersValuesEraser,
  deadLettersEraser,
  socialRowsEraser,
  accountsEraser,
];

/** Request bodies above this are refused (413) before anything parses them. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Head of the OpenAPI document (`/openapi.json`; the typed client's types are generated from it).
 * Authentication is explained here once; operations only say whether they need the bearer token.
 */
export const OPENAPI_CONFIG = {
  openapi: "3.1.0",
  info: {
    title: "Community edge API",
    version: "1.0.0",
    description: [
      "Counters, unread badges, follows, posts, home feeds and live presence for community apps. IDs are positive 64-bit integers as decimal strings.",
      "",
      "## Authentication",
      "Routes marked with a lock take `Authorization: Bearer <JWT>`, `exp` required, of either kind:",
      "- HS256 signed with the deployment's `JWT_SECRET` (the app's own backend, services): `sub` = the caller's user id, `role` = `user` (default), `service` or `admin`;",
      "- RS256, ES256 or EdDSA from the app's identity provider, verified with the keys at `JWT_JWKS_URL` (by `kid`), with `iss` = `JWT_ISSUER` and `aud` ∋ `JWT_AUDIENCE` when those are set; the user id is the claim `JWT_USER_ID_CLAIM` names (default `sub`), and the role is `user` unless `JWT_ROLE_CLAIM` maps one of the token's claim values to `service` or `admin`.",
      "A missing, invalid or expired token is answered `401` with the error envelope, whose message names what is wrong (e.g. the `iss`, the `aud`, the user id claim); ask your token provider for a new one and retry once. A provider token whose key cannot be fetched right now is answered `503` with `Retry-After`.",
      "WebSockets (`/v1/me/live`, `/v1/live/{roomId}/ws`) take the same JWT as `?token=` or as a subprotocol next to `live`, since browsers cannot set headers on a socket; they close with 4001 when it expires. A browser's socket must come from an origin `CORS_ORIGINS` allows (else `403` before the upgrade).",
      "",
      "## Calling from a web page",
      "Pages on the origins listed in `CORS_ORIGINS` may call every route: preflights are answered `204` (cached by the browser for two hours), and `Retry-After`, `Idempotent-Replayed`, `X-Request-Id` and `X-Consistency-Token` are readable.",
      "",
      "## Reading your own writes",
      "On a deployment whose Redis has read regions, an answer to a request that wrote carries `X-Consistency-Token`. Send the newest one you have on later requests (the typed client does it by itself) and their reads include your writes wherever they are answered; without it a read is as fresh as the nearest region. A malformed token is answered `400` naming the header.",
      "",
      "## Errors",
      "Every error is `{\"error\": {\"code\", \"message\", \"details\"?}}`; for bad input `details` names each field.",
      "",
      "Typed client: `import { createClient } from \"community-edge/client\"` (see the README).",
    ].join("\n"),
  },
} as const;

/** The OpenAPI document of `app` as `/openapi.json` serves it: every route, with examples. */
export function openApiDocument(app: OpenAPIHono<AppEnv>) {
  return withExamples(app.getOpenAPI31Document(OPENAPI_CONFIG));
}

/** Builds the HTTP app: middleware, every capability's routes, the OpenAPI document and docs page. */
export function newApp() {
  // RegExpRouter for every route, statics from a table (src/lib/app-router.ts): Hono's default
  // router would fall back to its slower TrieRouter for this app's route shapes.
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, router: new AppRouter() });
  app.use("*", requestContext(events));
  // Before anything that can refuse a request: preflights end here, and CORS headers reach every answer.
  app.use("*", corsPolicy());
  // After CORS, so a malformed token's 400 is readable by a page; before every route that reads Redis.
  app.use("*", consistencyTokens());
  app.use("*", socketOrigins());
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
  app.route("/", notifyRoutes);
  app.route("/", safetyRoutes);
  app.route("/", accountsRoutes(erasers));
  app.route("/", moderationRoutes);
  app.route("/", adminRoutes);
  mountDevJwks(app);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", { type: "http", scheme: "bearer", bearerFormat: "JWT" });
  // Built once per isolate: the routes do not change while it runs.
  let doc: ReturnType<typeof openApiDocument> | undefined;
  app.get("/openapi.json", (c) => c.json((doc ??= openApiDocument(app))));
  // Rendered from the same document: every route is named in the HTML itself; the interactive
  // renderer's files are served by this Worker from its bundle (src/docs/assets.ts), never a CDN's.
  let docsPage: string | undefined;
  app.get("/docs", (c) => {
    docsPage ??= renderDocsPage((doc ??= openApiDocument(app)));
    return c.html(docsPage, 200, { "Content-Security-Policy": DOCS_CONTENT_SECURITY_POLICY });
  });
  app.route("/", docsAssetRoutes);

  // The operator console: page, script and styles served by the Worker itself (no static assets),
  // same-origin only; everything it shows comes from the admin routes above with the operator's token.
  let adminPage: string | undefined;
  app.get(ADMIN_PAGE_PATH, (c) => c.html((adminPage ??= renderAdminPage()), 200, { "Content-Security-Policy": ADMIN_CONTENT_SECURITY_POLICY, "Cache-Control": "no-store" }));
  app.get(ADMIN_SCRIPT_PATH, (c) => c.body(ADMIN_APP_JS, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" }));
  app.get(ADMIN_STYLE_PATH, (c) => c.body(ADMIN_CSS, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" }));

  app.notFound((c) => c.json(errorBody("not_found", `No route for ${c.req.method} ${c.req.path}`), 404));
  app.onError(handleError);
  return app;
}
