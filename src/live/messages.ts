/**
 * The live-room socket's messages, shared by the room (`room.ts`) and the client
 * (`src/client/live-room.ts`): one type, so a change to what the room sends is a compile error
 * in the client.
 */

/**
 * Counts of the room. Watchers get them on connect and pushed (at most once a second) with
 * `sessionId` and `live`; a viewer gets its shard's counts when it sends `counts`.
 */
export type LiveCountsMessage = { type: "counts"; viewers: number; onlineFans: number; sessionId?: string | null; live?: boolean };

export type LiveRoomMessage = LiveCountsMessage;

/** What a client may send: `ping` (answered `pong` by the runtime) and `counts`. */
export type LiveRoomCommand = "ping" | "counts";
