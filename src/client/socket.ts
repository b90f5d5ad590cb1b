import ReconnectingWebSocket from "partysocket/ws";
import type { TokenProvider } from "./http";

/** What a socket helper needs from a WebSocket class: the browser's, React Native's, workerd's or `ws`'s. */
export type WebSocketClass = new (url: string, protocols?: string | string[]) => WebSocket;

export interface SocketOptions {
  /** Origin of the API (`https://…` or `http://…`; the socket uses `wss://`/`ws://` on it). */
  baseUrl: string;
  /** The caller's JWT; asked again with `refresh: true` after the server closed with 4001. */
  token: TokenProvider;
  /** Defaults to the global `WebSocket` (browsers, React Native, Workers, Node ≥ 22); pass `ws` on older Node. */
  WebSocket?: WebSocketClass;
  /** `ping` is sent this often while open; the server drops sockets silent for 60 s. Default 25 s. */
  pingIntervalMs?: number;
  /** First reconnect delay; each failed attempt multiplies it by 2 up to `maxReconnectDelayMs`. Default 500 ms. */
  minReconnectDelayMs?: number;
  /** Default 15 s. */
  maxReconnectDelayMs?: number;
}

export type SocketStatus = "connecting" | "open" | "closed";

/** Close code the server sends when the socket's token expired: reconnect with a fresh token. */
export const TOKEN_EXPIRED = 4001;

/**
 * The subprotocol every socket of the API takes its token next to (the server answers it back): a
 * subprotocol keeps the JWT out of URLs and access logs, and it is the one header a browser lets a
 * socket set.
 */
const SUBPROTOCOL = "live";

interface ChannelOptions<Message> extends SocketOptions {
  /** Path and query of the socket (without the token). */
  path: string;
  parse(data: string): Message | undefined;
  /** Called on every (re)open: whatever subscribes the socket again. */
  onOpen?(send: (text: string) => void): void;
  onMessage(message: Message): void;
  onStatus(status: SocketStatus): void;
  /** Whether a close by the server ends the helper (e.g. the live session ended). */
  isFinal?(code: number, reason: string): boolean;
}

/**
 * One logical connection that survives drops. Reconnecting is partysocket's ReconnectingWebSocket
 * (exponential backoff, connection timeout, no reconnect after `close()`); on top of it: random
 * jitter before each reconnect, so clients dropped together do not return together; the token
 * from the provider on every connect, fresh after a 4001 or after an attempt that never opened
 * (an expired token is refused with 401 before the upgrade, which a browser sees only as a
 * failure); `ping` on an interval; and application close codes (4000–4999 other than 4001, and
 * 1008 "policy") end it instead of retrying a refusal forever.
 */
export function openChannel<Message>(options: ChannelOptions<Message>) {
  const { pingIntervalMs = 25_000, minReconnectDelayMs = 500, maxReconnectDelayMs = 15_000 } = options;
  let refresh = false;
  let refreshedSinceOpen = false;
  let openedThisAttempt = true; // the first attempt is not a retry
  let attempts = 0;
  let current: Promise<string | null | undefined> = Promise.resolve(null);
  let pinger: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const nextToken = async () => {
    if (attempts++ > 0) await sleep(Math.random() * minReconnectDelayMs); // jitter on every reconnect
    if (!openedThisAttempt && !refreshedSinceOpen) refresh = true;
    openedThisAttempt = false;
    const jwt = await options.token({ refresh });
    if (refresh) refreshedSinceOpen = true;
    refresh = false;
    return jwt;
  };
  const url = () => {
    current = nextToken();
    return current.then(() => new URL(options.path, options.baseUrl.replace(/^http/, "ws")).toString());
  };
  // Called right after `url()` for the same attempt (partysocket asks for both together).
  const protocols = () => current.then((jwt) => (jwt ? [SUBPROTOCOL, jwt] : [SUBPROTOCOL]));

  const endsChannel = (code: number, reason: string) =>
    closed || code === 1008 || (code >= 4000 && code < 5000 && code !== TOKEN_EXPIRED) || (options.isFinal?.(code, reason) ?? false);

  options.onStatus("connecting");
  const socket = new ReconnectingWebSocket(url, protocols, {
    WebSocket: options.WebSocket,
    minReconnectionDelay: minReconnectDelayMs,
    maxReconnectionDelay: maxReconnectDelayMs,
    reconnectionDelayGrowFactor: 2,
    connectionTimeout: 10_000,
    shouldReconnectOnClose: (event) => {
      if (event.code === TOKEN_EXPIRED) refresh = true;
      return !endsChannel(event.code, event.reason);
    },
  });
  const send = (text: string) => {
    if (socket.readyState === socket.OPEN) socket.send(text);
  };
  socket.addEventListener("open", () => {
    openedThisAttempt = true;
    refreshedSinceOpen = false;
    clearInterval(pinger);
    pinger = setInterval(() => send("ping"), pingIntervalMs);
    options.onStatus("open");
    options.onOpen?.(send);
  });
  socket.addEventListener("close", (event) => {
    clearInterval(pinger);
    const final = endsChannel(event.code, event.reason);
    if (final) {
      closed = true;
      socket.close();
    }
    options.onStatus(final ? "closed" : "connecting");
  });
  socket.addEventListener("message", (event) => {
    if (typeof event.data !== "string" || event.data === "pong") return;
    const message = options.parse(event.data);
    if (message !== undefined) options.onMessage(message);
  });

  return {
    send,
    /** Drops the socket now and reconnects (after backoff and jitter), e.g. when the app returns to the foreground. */
    reconnect: () => socket.reconnect(),
    close() {
      // Idempotent: a subscriber that closes on a status change must not recurse through onStatus.
      if (closed) return;
      closed = true;
      clearInterval(pinger);
      socket.close(1000, "client closed");
      options.onStatus("closed");
    },
  };
}

/** A tiny observable value: the current state and who to tell when it changes. */
export function observable<State>(initial: State) {
  let state = initial;
  const listeners = new Set<(state: State) => void>();
  return {
    get: () => state,
    set(next: State) {
      state = next;
      for (const listener of listeners) listener(state);
    },
    subscribe(listener: (state: State) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Parses a JSON message with a `type`; anything else (not JSON, no type) is ignored. */
export function parseTyped<Message extends { type: string }>(data: string): Message | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return value && typeof value === "object" && typeof (value as { type?: unknown }).type === "string" ? (value as Message) : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
