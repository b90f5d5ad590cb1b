/**
 * Live badges: the sockets of `GET /v1/me/live` and what tells them a badge moved. The one entry
 * point of `src/badges/live/`: the rest of the app imports from here, never a file inside.
 *
 * Dependencies point one way: the live socket reads the badges read model (`getBadges`, the cheap
 * kinds' reads); the read model (kinds, keys, scripts) never imports the socket. Routes and the
 * badges subscriber, which wire writes to pushes, import both.
 *
 * The one exception is the `BadgeHub` class itself (`./hub`): the Worker's entry (`src/index.ts`)
 * exports it for the runtime, as it does the live rooms' object, and nothing else loads it — it
 * imports `cloudflare:workers`, which Node-side tools that load the app (the OpenAPI and client
 * type generators) cannot. Here it is a type only.
 */
export type { BadgeHub } from "./hub";
export { liveBadgeRoutes } from "./routes";
export { connectLive, hubOf, hubShardOf, hubShards, hubStub, onlineAmong, pushChanged, pushChangedOnline, pushing, pushingTally, pushBigPost, pushPosted, pushStamp, DEFAULT_HUB_SHARDS, MAX_HUB_SHARDS } from "./push";
export {
  CLOSE_MESSAGE_TOO_BIG,
  CLOSE_TOKEN_EXPIRED,
  CLOSE_TOO_MANY_SOCKETS,
  DEGRADED_RETRY_MS,
  FRESH_READ_MS,
  MAX_CLIENT_MESSAGE_BYTES,
  MAX_SOCKETS_PER_USER,
  PUSH_INTERVAL_MS,
  TALLY_ORDER_MS,
  type BigPost,
  type HubStamp,
  type PostedTo,
  type TallyChange,
} from "./protocol";
export { CHEAP_KINDS, type BadgeKind, type BadgeValues, type CheapKind } from "./values";
