/**
 * `community-edge/client`: the typed HTTP client and the live-socket helpers for apps (browsers,
 * React Native, Node, Workers). Web APIs only: `fetch`, `Request`, `URL`, `WebSocket`, `crypto.subtle`
 * (Web Push). A service worker's side of push is its own entry, `community-edge/client/service-worker`.
 */
export { authorizedFetch, consistentFetch, createClient, type ApiError, type ClientOptions, type ErrorCode, type TokenProvider } from "./http";
export { connectLiveRoom, type LiveCountsMessage, type LiveRoomConnection, type LiveRoomMessage, type LiveRoomOptions, type LiveRoomState } from "./live-room";
export { connectBadges, mergeBadges, type BadgeKind, type Badges, type BadgesConnection, type BadgesMessage, type BadgesOptions, type BadgesState } from "./badges";
export { registerWebPush, unregisterWebPush, webPushDeviceId, WebPushRegistrationError, type Device, type WebPushApi, type WebPushOptions, type WebPushRegistrationLike } from "./web-push";
export { TOKEN_EXPIRED, type SocketOptions, type SocketStatus, type WebSocketClass } from "./socket";
export { exportRecords, ExportError, type ExportRecord } from "./export";
export type { components, paths } from "./schema";
