/**
 * WebSockets a Workers test opens, closed and waited for after each test. A socket left open, or
 * closed on a test's last line without waiting, makes its Durable Object wake during the file's
 * teardown (the close reaches it then), load modules through a runner that is closing, and print
 * `EnvironmentTeardownError … Closing rpc while "resolve" was pending`: exactly the work left
 * running between two files that makes the Workers pool's stall (workers-sdk#15498) likelier.
 */
type Tracked = { ws: WebSocket; closed: Promise<void> };

const tracked = new Set<Tracked>();

/** Tracks `ws` (call before `accept()`) so that `closeSockets()` closes it and waits for the object's answer. */
export function trackSocket(ws: WebSocket): WebSocket {
  const closed = new Promise<void>((resolve) => {
    ws.addEventListener("close", () => resolve());
    ws.addEventListener("error", () => resolve());
  });
  tracked.add({ ws, closed });
  return ws;
}

/**
 * Closes every tracked socket still open and waits (at most `ms`) until each has its close event:
 * the object answered the close, so its handler ran before the test ends. For `afterEach`.
 */
export async function closeSockets(ms = 5_000): Promise<void> {
  const all = [...tracked];
  tracked.clear();
  for (const { ws } of all) {
    if (ws.readyState !== WebSocket.OPEN) continue;
    try {
      ws.close(1000, "test done");
    } catch {
      // closed meanwhile
    }
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([Promise.all(all.map((s) => s.closed)), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
