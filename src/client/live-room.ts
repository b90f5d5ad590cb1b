import type { LiveCountsMessage, LiveRoomMessage } from "../live/messages";
import { observable, openChannel, parseTyped, type SocketOptions, type SocketStatus } from "./socket";

export type { LiveCountsMessage, LiveRoomMessage };

export interface LiveRoomState {
  status: SocketStatus;
  /** The latest counts received (kept across reconnects until new ones arrive); null before the first. */
  counts: Omit<LiveCountsMessage, "type"> | null;
}

export interface LiveRoomOptions extends SocketOptions {
  roomId: string;
  /** `view`: the caller is a viewer in the room while connected. `watch`: counts are pushed (the host always watches). */
  mode?: "view" | "watch";
  /** Every message, typed, as it arrives. */
  onMessage?(message: LiveRoomMessage): void;
}

/**
 * A live-room socket (`GET /v1/live/{roomId}/ws`) that stays connected: it reconnects with backoff
 * and jitter, enters or watches the room again on every reconnect (a viewer asks for `counts`
 * each time), pings, and keeps the latest counts. A viewer's socket ends when the host ends the
 * session (close 1000 "session ended"); a watcher's stays and sees `live: false`.
 *
 * @example
 * const room = connectLiveRoom({ baseUrl, token, roomId: "stream-42", mode: "watch" });
 * room.subscribe(({ counts }) => render(counts?.viewers ?? 0));
 * // later
 * room.close();
 */
export function connectLiveRoom({ roomId, mode = "view", onMessage, ...socket }: LiveRoomOptions) {
  const state = observable<LiveRoomState>({ status: "connecting", counts: null });
  const channel = openChannel<LiveRoomMessage>({
    ...socket,
    path: `/v1/live/${encodeURIComponent(roomId)}/ws?mode=${mode}`,
    parse: parseTyped,
    onOpen: (send) => {
      if (mode === "view") send("counts");
    },
    onMessage(message) {
      if (message.type === "counts") {
        const { type: _type, ...counts } = message;
        state.set({ ...state.get(), counts });
      }
      onMessage?.(message);
    },
    onStatus: (status) => state.set({ ...state.get(), status }),
    isFinal: (code, reason) => mode === "view" && code === 1000 && reason === "session ended",
  });
  return {
    /** Status and latest counts. */
    get state(): LiveRoomState {
      return state.get();
    },
    subscribe: state.subscribe,
    /** Asks for the counts now (answered with a `counts` message). */
    requestCounts: () => channel.send("counts"),
    reconnect: channel.reconnect,
    close: channel.close,
  };
}

export type LiveRoomConnection = ReturnType<typeof connectLiveRoom>;
