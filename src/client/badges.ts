import type { ApiError } from "./http";
import type { components } from "./schema";
import { observable, openChannel, parseTyped, type SocketOptions, type SocketStatus } from "./socket";

/** Exactly the body `GET /v1/me/badges?cap=` answers. */
export type Badges = components["schemas"]["Badges"];
/** A badge kind: `notifications`, `broadcasts`, `dms`, … (every field of the snapshot but its settings). */
export type BadgeKind = Exclude<keyof Badges, "cap" | "degraded">;

/** What the badges socket (`GET /v1/me/live`) sends. */
export type BadgesMessage =
  /** The first message, and the answer to `badges`. */
  | { type: "badges"; badges: Badges }
  /** Only the kinds that changed, each with its whole value as in the snapshot. */
  | { type: "badges"; changed: Partial<Pick<Badges, BadgeKind>> }
  /** The server refused a message from the client (nothing changed). */
  | { type: "error"; error: ApiError };

export interface BadgesState {
  status: SocketStatus;
  /** The snapshot with every change since merged in; null until the first snapshot arrives. */
  badges: Badges | null;
}

export interface BadgesOptions extends SocketOptions {
  /** Stop counting at this number, as `GET /v1/me/badges?cap=` (default 99 on the server). */
  cap?: number;
  /** Every message, typed, as it arrives. */
  onMessage?(message: BadgesMessage): void;
}

/**
 * The caller's badges, pushed over `GET /v1/me/live`: a snapshot first, then only the kinds that
 * changed. The token travels as a subprotocol next to `live`. Reconnects with backoff and jitter (a new connection starts with a new snapshot, so
 * nothing missed while away is lost), refreshes the token after a 4001, pings, and exposes the
 * snapshot merged with the changes.
 *
 * @example
 * const live = connectBadges({ baseUrl, token, cap: 99 });
 * live.subscribe(({ badges }) => setBadge(badges?.dms.count ?? 0));
 */
export function connectBadges({ cap, onMessage, ...socket }: BadgesOptions) {
  const state = observable<BadgesState>({ status: "connecting", badges: null });
  const channel = openChannel<BadgesMessage>({
    ...socket,
    path: `/v1/me/live${cap === undefined ? "" : `?cap=${cap}`}`,
    parse: parseTyped,
    onMessage(message) {
      state.set({ ...state.get(), badges: mergeBadges(state.get().badges, message) });
      onMessage?.(message);
    },
    onStatus: (status) => state.set({ ...state.get(), status }),
  });
  return {
    /** Status and the latest badges. */
    get state(): BadgesState {
      return state.get();
    },
    subscribe: state.subscribe,
    /** Asks for a fresh snapshot (answered with a `badges` message). */
    refresh: () => channel.send("badges"),
    reconnect: channel.reconnect,
    close: channel.close,
  };
}

export type BadgesConnection = ReturnType<typeof connectBadges>;

/** The badges after `message`: a snapshot replaces them, a change replaces the kinds it names. */
export function mergeBadges(current: Badges | null, message: BadgesMessage): Badges | null {
  if (message.type !== "badges") return current;
  if ("badges" in message) return message.badges;
  return current ? { ...current, ...message.changed } : current;
}
