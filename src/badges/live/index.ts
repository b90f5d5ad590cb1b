/**
 * Live badges: the sockets of `GET /v1/me/live` and what tells them a badge moved. The one entry
 * point of `src/badges/live/`: the rest of the app imports from here, never a file inside.
 *
 * Dependencies point one way: the live socket reads the badges read model (`getBadges`, the cheap
 * kinds' reads); the read model (kinds, keys, scripts) never imports the socket. Routes and the
 * badges subscriber, which wire writes to pushes, import both.
 */
export { BadgeHub } from "./hub";
export { liveBadgeRoutes } from "./routes";
export { connectLive, hubOf, hubShardOf, hubShards, hubStub, pushChanged, pushing, pushingTally, pushBigPost, pushPosted, pushStamp, DEFAULT_HUB_SHARDS, MAX_HUB_SHARDS } from "./push";
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
