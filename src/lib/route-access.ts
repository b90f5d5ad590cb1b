import type { Role } from "./caller";

/**
 * Who may call each route of the app: one line per route, the source of the "Security" section of
 * docs/operations.md. `test/platform/route-access.test.ts` walks every route of the OpenAPI
 * document with no token, bad tokens, each role's token and a user's token on another user's
 * resource, and checks the answers against this table; a route missing from it (or listed here
 * and gone) fails that test, so a new route cannot ship before someone has decided who may call it.
 *
 * The routes' own checks (`authenticate({ roles })` and the domain's ownership checks) are what
 * enforce it; this table states what they must enforce.
 */

/**
 * What a `user` token may act on, once its role is accepted. A `service` or `admin` token whose
 * role the route accepts acts on anyone's resource.
 * - `none`: the route names nobody's resource (public reads, service and admin work, counts).
 * - `caller`: the caller's own data only; nothing in the request can name another user whose data
 *   it reads or changes (`/v1/me/*`, `…/likes/me`, the caller's presence, the caller's post).
 * - `post-author`: the post `{id}`: its author only (403 for anyone else).
 * - `room-owner`: the live room `{roomId}`: its owner only (403 for anyone else). A room's owner
 *   is the host of its first session, or whom a service or an admin assigns.
 * - `room-fans`: the live room `{roomId}`: everyone accepted reads its counts, but fan ids go to
 *   its owner only (anyone else gets 403 or the answer without ids: `items: null`).
 */
export type Ownership = "none" | "caller" | "post-author" | "room-owner" | "room-fans";

/** `public`: no token needed, none is read. Otherwise the roles whose token it accepts (403 for the others). */
export type Roles = "public" | readonly Role[];

export interface RouteAccess {
  roles: Roles;
  owner: Ownership;
}

const PUBLIC: RouteAccess = { roles: "public", owner: "none" };
const ANY_ROLE = ["user", "service", "admin"] as const;
/** The caller's own data, any role. */
const ME: RouteAccess = { roles: ANY_ROLE, owner: "caller" };
const SERVICE: RouteAccess = { roles: ["service"], owner: "none" };
const ADMIN: RouteAccess = { roles: ["admin"], owner: "none" };

/** Every route, as `METHOD /path/{param}` (the OpenAPI document's templates). */
export const ROUTE_ACCESS = {
  // Platform: health, the API's document and docs page, the operator console's files (its data
  // comes from the admin routes with the operator's token), the development JWKS.
  "GET /health": PUBLIC,
  "GET /openapi.json": PUBLIC,
  "GET /docs": PUBLIC,
  "GET /docs/assets/swagger-ui-bundle.js": PUBLIC,
  "GET /docs/assets/swagger-ui.css": PUBLIC,
  "GET /docs/assets/init.js": PUBLIC,
  "GET /docs/assets/docs.css": PUBLIC,
  "GET /docs/assets/LICENSE": PUBLIC,
  "GET /docs/assets/NOTICE": PUBLIC,
  "GET /admin": PUBLIC,
  "GET /admin/app.js": PUBLIC,
  "GET /admin/app.css": PUBLIC,
  "GET /.well-known/dev-jwks.json": PUBLIC,

  // Follows and posts
  "PUT /v1/me/following/{userId}": ME,
  "DELETE /v1/me/following/{userId}": ME,
  "GET /v1/users/{id}/followers": PUBLIC,
  "GET /v1/users/{id}/following": PUBLIC,
  "POST /v1/posts": ME,
  "GET /v1/posts/{id}": PUBLIC,
  "DELETE /v1/posts/{id}": { roles: ["user", "admin"], owner: "post-author" },
  "GET /v1/users/{id}/posts": PUBLIC,
  "GET /v1/posts/trending": PUBLIC,
  "GET /v1/me/feed": ME,

  // Counters
  "GET /v1/counters/{entity}": PUBLIC,
  "POST /v1/counters/{entity}/{id}": SERVICE,
  "PUT /v1/posts/{id}/likes/me": ME,
  "DELETE /v1/posts/{id}/likes/me": ME,
  "PUT /v1/posts/{id}/favorites/me": ME,
  "DELETE /v1/posts/{id}/favorites/me": ME,
  "POST /v1/posts/{id}/views": ME,
  "POST /v1/admin/counters/reconcile": ADMIN,

  // Badges: what services record for users, and what each user reads and marks read
  "POST /v1/users/{id}/notifications": SERVICE,
  "GET /v1/me/notifications": ME,
  "POST /v1/me/notifications/{type}/read": ME,
  "POST /v1/me/notifications/read": ME,
  "POST /v1/broadcasts": ADMIN,
  "GET /v1/me/broadcasts": ME,
  "POST /v1/me/broadcasts/read": ME,
  "PUT /v1/reddots/{channel}": ADMIN,
  "POST /v1/me/reddots/{channel}/seen": ME,
  "GET /v1/me/reddots": ME,
  "GET /v1/me/unread/authors": ME,
  "POST /v1/me/authors/{id}/seen": ME,
  "POST /v1/streams/{kind}/{id}/items": SERVICE,
  "PUT /v1/streams/{kind}/{id}/members/{userId}": SERVICE,
  "DELETE /v1/streams/{kind}/{id}/members/{userId}": SERVICE,
  "POST /v1/me/streams/{kind}/{id}/read": ME,
  "GET /v1/me/streams": ME,
  "POST /v1/dms/{toUserId}": SERVICE,
  "POST /v1/me/dms/{peerId}/read": ME,
  "GET /v1/me/dms": ME,
  "POST /v1/messages": SERVICE,
  "GET /v1/me/messages": ME,
  "POST /v1/me/messages/read": ME,
  "POST /v1/me/messages/{id}/read": ME,
  "GET /v1/me/badges": ME,
  "GET /v1/me/live": ME, // WebSocket: the token as ?token= or a subprotocol

  // Live rooms
  "POST /v1/live/{roomId}/sessions": { roles: ANY_ROLE, owner: "room-owner" },
  "DELETE /v1/live/{roomId}/sessions/current": { roles: ANY_ROLE, owner: "room-owner" },
  "POST /v1/live/{roomId}/presence": ME,
  "DELETE /v1/live/{roomId}/presence": ME,
  "GET /v1/live/online": SERVICE,
  "GET /v1/live/{roomId}/online": { roles: ANY_ROLE, owner: "room-fans" }, // ?list=fans lists ids
  "GET /v1/live/{roomId}/online/{userId}": { roles: ANY_ROLE, owner: "none" },
  "GET /v1/live/{roomId}/joined": { roles: ANY_ROLE, owner: "none" },
  "GET /v1/live/{roomId}/loyal": { roles: ANY_ROLE, owner: "room-fans" },
  "GET /v1/live/{roomId}/ws": ME, // WebSocket: the caller views (or watches) as themself

  // Push notifications: the caller's devices and preferences
  "PUT /v1/me/devices/{deviceId}": ME,
  "DELETE /v1/me/devices/{deviceId}": ME,
  "GET /v1/me/devices": ME,
  "GET /v1/devices/webpush-key": PUBLIC,
  "GET /v1/me/notification-preferences": ME,
  "PUT /v1/me/notification-preferences": ME,
  "GET /v1/me/notification-authors": ME,
  "PUT /v1/me/notification-authors/{authorId}": ME,
  "DELETE /v1/me/notification-authors/{authorId}": ME,

  // Safety: the caller's own blocks and mutes (the user named in the path is whom they act on, not whose data)
  "PUT /v1/me/blocks/{userId}": ME,
  "DELETE /v1/me/blocks/{userId}": ME,
  "GET /v1/me/blocks": ME,
  "PUT /v1/me/mutes/{userId}": ME,
  "DELETE /v1/me/mutes/{userId}": ME,
  "GET /v1/me/mutes": ME,
  // Reports: any signed-in caller reports someone (the reporter is the caller); the queue, the
  // actions, suspensions and the term filter are the operators'.
  "POST /v1/reports": ME,
  "GET /v1/admin/reports": ADMIN,
  "POST /v1/admin/reports/{id}/actions": ADMIN,
  "PUT /v1/admin/users/{id}/suspension": ADMIN,
  "DELETE /v1/admin/users/{id}/suspension": ADMIN,
  "PUT /v1/admin/moderation/terms": ADMIN,
  "GET /v1/admin/moderation/terms": ADMIN,

  // Accounts: deletion and export
  "DELETE /v1/me": { roles: ["user"], owner: "caller" },
  "DELETE /v1/users/{id}": { roles: ["service", "admin"], owner: "none" },
  "GET /v1/admin/deletions/{id}": ADMIN,
  "GET /v1/admin/deletions": ADMIN,
  "GET /v1/me/export": { roles: ["user"], owner: "caller" },

  // Operators
  "GET /v1/admin/status": ADMIN,
  "GET /v1/admin/status/history": ADMIN,
  "GET /v1/admin/dead-letters": ADMIN,
  "POST /v1/admin/dead-letters/replay": ADMIN,
  "DELETE /v1/admin/dead-letters/{id}": ADMIN,
} as const satisfies Record<string, RouteAccess>;

export type RouteKey = keyof typeof ROUTE_ACCESS;
