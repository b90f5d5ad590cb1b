/**
 * The socket helpers' reconnect schedule, on fake timers and a WebSocket that never connects: the
 * delay doubles from `minReconnectDelayMs` up to `maxReconnectDelayMs`, and a random jitter of up
 * to one minimum delay is added before every reconnect. (The real reconnects against the Worker
 * are in client-sockets.test.ts.)
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { connectLiveRoom, type WebSocketClass } from "community-edge/client";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Gaps between connection attempts over `ms` of fake time, with `Math.random()` fixed at `random`. */
async function attemptGaps(random: number, ms: number): Promise<number[]> {
  vi.useFakeTimers();
  vi.spyOn(Math, "random").mockReturnValue(random);
  const attempts: number[] = [];
  class RefusedSocket extends EventTarget {
    readyState = 0;
    binaryType = "blob";
    constructor() {
      super();
      attempts.push(Date.now());
      // Refused at once (after the helper has added its listeners), as a dead server is.
      queueMicrotask(() => {
        this.readyState = 3;
        this.dispatchEvent(new Event("error"));
      });
    }
    send() {}
    close() {}
  }
  const room = connectLiveRoom({
    baseUrl: "http://127.0.0.1:9",
    token: () => "jwt",
    roomId: "r",
    WebSocket: RefusedSocket as unknown as WebSocketClass,
    minReconnectDelayMs: 100,
    maxReconnectDelayMs: 1_000,
  });
  await vi.advanceTimersByTimeAsync(ms);
  room.close();
  return attempts.slice(1).map((t, i) => t - attempts[i]!);
}

describe("socket helper reconnects", () => {
  it("back off exponentially up to the maximum, plus jitter", async () => {
    // Jitter 0.5 × 100 ms on top of 100, 200, 400, 800, then the 1,000 ms cap.
    expect(await attemptGaps(0.5, 6_000)).toEqual([150, 250, 450, 850, 1050, 1050, 1050, 1050]);
  });

  it("spread clients out: a different draw, a different schedule", async () => {
    const early = await attemptGaps(0.25, 3_000);
    const late = await attemptGaps(0.99, 3_000);
    expect(early.slice(0, 4)).toEqual([125, 225, 425, 825]);
    expect(late.slice(0, 4)).toEqual([199, 299, 499, 899]);
  });
});

describe("socket helper close()", () => {
  it("is idempotent, so a subscriber may close on any status change without recursing", async () => {
    class SilentSocket extends EventTarget {
      readyState = 0;
      binaryType = "blob";
      send() {}
      close() {}
    }
    const room = connectLiveRoom({ baseUrl: "http://127.0.0.1:9", token: () => "jwt", roomId: "r", WebSocket: SilentSocket as unknown as WebSocketClass });
    const statuses: string[] = [];
    room.subscribe((state) => {
      statuses.push(state.status);
      room.close();
    });
    room.close();
    room.close();
    expect(statuses).toEqual(["closed"]);
  });
});
