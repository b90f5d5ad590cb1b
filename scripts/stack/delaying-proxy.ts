/**
 * A TCP proxy that delivers every byte `delayMs` after it arrived, in each direction: one leg of a
 * long-distance link (half a round trip), for the far-region stack (`far-region.ts`). A replica's
 * replication stream and a far Worker's Postgres connections pass through one, so their lag is real.
 *
 * Each direction keeps one queue of chunks stamped with when they are due, drained by one timer,
 * so bytes leave in the order they came (a timer per chunk could reorder chunks whose timers fire
 * in the same tick out of order under load). Back-pressure: a direction stops reading from its
 * source while more than HIGH_WATER_BYTES wait in its queue or its destination's buffer is full.
 *
 * @example
 * const link = await startDelayingProxy({ targetHost: "127.0.0.1", targetPort: 6379, delayMs: 100 });
 * // connect to 127.0.0.1:link.port: every byte arrives 100 ms later, each way
 */
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { performance } from "node:perf_hooks";

export interface DelayingProxy {
  port: number;
  host: string;
  delayMs: number;
  /**
   * Holds every byte in flight (both directions, every connection) until `hold(false)`: a link
   * that stalls, so a test can observe a replica that has not yet received a write.
   */
  hold(held: boolean): void;
  /** Live connections through the proxy. */
  readonly connections: number;
  close(): Promise<void>;
}

export interface DelayingProxyOptions {
  targetHost: string;
  targetPort: number;
  /** One way; a round trip through the proxy costs twice this. */
  delayMs: number;
  host?: string;
  port?: number;
}

/** Bytes a direction may hold before it stops reading from its source. */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;

/** One direction of one connection: what `from` sent, on its way to `to`. */
class DelayedDirection {
  private readonly queue: { due: number; chunk: Buffer | null }[] = []; // null: `from` ended
  private queuedBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private waitingForDrain = false;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly delayMs: number,
    private readonly isHeld: () => boolean,
  ) {
    from.on("data", (chunk: Buffer) => this.push(chunk));
    from.on("end", () => this.push(null));
    to.on("drain", () => {
      this.waitingForDrain = false;
      this.flush();
    });
  }

  private push(chunk: Buffer | null): void {
    this.queue.push({ due: performance.now() + this.delayMs, chunk });
    if (chunk) {
      this.queuedBytes += chunk.length;
      if (this.queuedBytes > HIGH_WATER_BYTES) this.from.pause();
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.waitingForDrain || this.isHeld() || this.queue.length === 0) return;
    const wait = Math.max(0, this.queue[0]!.due - performance.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, Math.ceil(wait));
  }

  /** Sends every chunk that is due, oldest first, until one is not or `to` is full. */
  flush(): void {
    while (!this.waitingForDrain && !this.isHeld() && this.queue.length && this.queue[0]!.due <= performance.now()) {
      const { chunk } = this.queue.shift()!;
      if (this.to.destroyed) return;
      if (chunk === null) {
        this.to.end();
        continue;
      }
      this.queuedBytes -= chunk.length;
      if (!this.to.write(chunk)) this.waitingForDrain = true;
    }
    if (this.queuedBytes <= HIGH_WATER_BYTES / 2 && this.from.isPaused()) this.from.resume();
    this.schedule();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

export async function startDelayingProxy({ targetHost, targetPort, delayMs, host = "127.0.0.1", port = 0 }: DelayingProxyOptions): Promise<DelayingProxy> {
  if (!(delayMs >= 0)) throw new Error(`delayMs must be ≥ 0, not ${delayMs}`);
  let held = false;
  const live = new Set<{ client: Socket; target: Socket; directions: DelayedDirection[] }>();

  // Half-open allowed: an end is delivered as late as the bytes before it (a queued marker).
  const server = createServer({ allowHalfOpen: true }, (client) => {
    const target = connect({ port: targetPort, host: targetHost, allowHalfOpen: true });
    client.setNoDelay(true);
    target.setNoDelay(true);
    const isHeld = () => held;
    const pair = { client, target, directions: [new DelayedDirection(client, target, delayMs, isHeld), new DelayedDirection(target, client, delayMs, isHeld)] };
    live.add(pair);
    // Either side failing takes the whole connection down, as a broken link does; a clean end
    // travels through the queue, and the pair is gone once both sides have closed.
    const teardown = () => {
      if (!live.delete(pair)) return;
      for (const direction of pair.directions) direction.stop();
      client.destroy();
      target.destroy();
    };
    for (const socket of [client, target]) {
      socket.on("error", teardown);
      socket.on("close", (hadError) => {
        if (hadError || (client.destroyed && target.destroyed)) teardown();
      });
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });

  return {
    port: (server.address() as AddressInfo).port,
    host,
    delayMs,
    hold(value: boolean) {
      held = value;
      if (!held) for (const pair of live) for (const direction of pair.directions) direction.flush();
    },
    get connections() {
      return live.size;
    },
    async close() {
      for (const pair of live) {
        for (const direction of pair.directions) direction.stop();
        pair.client.destroy();
        pair.target.destroy();
      }
      live.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
