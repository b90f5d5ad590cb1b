/**
 * A local stand-in for APNs (token authentication), as strict as Apple where our code could be
 * wrong. One port speaks both HTTP/2 (cleartext, prior knowledge: what APNs speaks, over TLS) and
 * HTTP/1.1: the first bytes of a connection say which (`PRI * HTTP/2.0` is the HTTP/2 preface).
 * A deployed Worker's fetch speaks HTTP/2 to Apple; locally, workerd's fetch (like Node's) speaks
 * only HTTP/1.1, so the Worker reaches this stand-in over HTTP/1.1 and tests show the HTTP/2 side
 * with Node's http2 client (docs/push-delivery.md, "The local stack").
 *
 *   POST /3/device/{token}
 *     - `authorization: bearer <ES256 JWT>`: `kid` the configured key id, `iss` the team, the
 *       signature against the key's public half, `iat` at most an hour old (403
 *       MissingProviderToken / InvalidProviderToken / ExpiredProviderToken); a token newer than
 *       the last one by less than 20 minutes is 429 TooManyProviderTokenUpdates (counted as
 *       `tokenUpdates`; with `enforceTokenUpdates: false` — dev, where every reload of the Worker
 *       signs a new one — accepted, and still counted);
 *     - `apns-topic` (400 MissingTopic / TopicDisallowed), `apns-push-type` (InvalidPushType),
 *       `apns-priority`, `apns-expiration`, `apns-collapse-id` (≤ 64 bytes), the payload (JSON
 *       with `aps`, ≤ 4 KB: 413 PayloadTooLarge);
 *     - the device token (64 hex, else 400 BadDeviceToken); a token marked unregistered answers
 *       410 `{"reason":"Unregistered","timestamp":<ms>}`, one marked as of the other environment
 *       400 BadDeviceToken, a throttled one 429 TooManyRequests with `Retry-After`;
 *     - 200 with an `apns-id` header, recorded.
 */
import { createServer as createHttp1Server, type Server as Http1Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server } from "node:http2";
import { connect, createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from "node:net";
import { randomUUID, type KeyObject } from "node:crypto";
import { headersOf, parseJwt, publicKeyOf, readBody, sendAnswer, signedBy, type Answer, type AnyRequest, type AnyResponse } from "./standin-http.js";
import type { ReceivedLog } from "./received.js";

const MAX_TOKEN_AGE_SECONDS = 60 * 60;
const MIN_TOKEN_UPDATE_SECONDS = 20 * 60;
const SKEW_SECONDS = 60;
/** Apple's limit for a regular push payload. */
const MAX_PAYLOAD_BYTES = 4096;
const PUSH_TYPES = new Set(["alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity", "pushtotalk", "widgets", "controls"]);
const MAX_CONTROLLED_TOKENS = 10_000;
const HTTP2_PREFACE = "PRI * HTTP/2.0";

export interface ApnsKey {
  keyId: string;
  teamId: string;
  /** The .p8 (PKCS#8 PEM); the stand-in keeps only its public half. */
  privateKey: string;
  /** Bundle ids accepted as `apns-topic` (empty: any). */
  topics?: readonly string[];
}

export interface ApnsStandIn {
  /** Origin for APNS_API_URL (both protocols). */
  url: string;
  /** Later pushes to `token` answer 410 Unregistered with this timestamp (default now). */
  markUnregistered(token: string, timestamp?: number): void;
  /** `token` belongs to the other environment: pushes answer 400 BadDeviceToken. */
  markWrongEnvironment(token: string): void;
  /** The next `count` pushes to `token` answer 429 TooManyRequests with `Retry-After`. */
  throttle(token: string, count: number, retryAfterSeconds: number): void;
  /** Provider tokens that replaced a previous one (the first does not count). */
  readonly tokenUpdates: number;
  close(): Promise<void>;
}

const reason = (status: number, why: string, headers: Record<string, string> = {}): Answer => [status, { reason: why }, { "apns-id": randomUUID(), ...headers }];

export async function startApnsStandIn({ key, received, enforceTokenUpdates = true }: { key: ApnsKey; received: ReceivedLog; enforceTokenUpdates?: boolean }): Promise<ApnsStandIn> {
  const publicKey: KeyObject = publicKeyOf(key.privateKey);
  const unregistered = new Map<string, number>();
  const wrongEnvironment = new Set<string>();
  const throttled = new Map<string, { count: number; retryAfterSeconds: number }>();
  /** `iat` of the newest provider token accepted, and how many times it was replaced. */
  let newestIat: number | undefined;
  let tokenUpdates = 0;

  function checkProviderToken(authorization: string | undefined): Answer | undefined {
    const bearer = /^bearer (\S+)$/i.exec(authorization ?? "")?.[1];
    if (!bearer) return reason(403, "MissingProviderToken");
    const jwt = parseJwt(bearer);
    if (!jwt || jwt.header.kid !== key.keyId || jwt.claims.iss !== key.teamId || !signedBy(jwt, publicKey, "ES256")) return reason(403, "InvalidProviderToken");
    const iat = jwt.claims.iat;
    const now = Date.now() / 1000;
    if (typeof iat !== "number" || iat > now + SKEW_SECONDS) return reason(403, "InvalidProviderToken");
    if (now - iat > MAX_TOKEN_AGE_SECONDS) return reason(403, "ExpiredProviderToken");
    if (newestIat === undefined) newestIat = iat;
    else if (iat > newestIat) {
      tokenUpdates += 1;
      if (iat - newestIat < MIN_TOKEN_UPDATE_SECONDS && enforceTokenUpdates) return reason(429, "TooManyProviderTokenUpdates");
      newestIat = iat;
    }
    return undefined;
  }

  function checkHeaders(headers: Record<string, string>): Answer | undefined {
    const topic = headers["apns-topic"];
    if (!topic) return reason(400, "MissingTopic");
    if (key.topics?.length ? !key.topics.includes(topic) : !/^[A-Za-z0-9.-]+$/.test(topic)) return reason(400, "TopicDisallowed");
    const pushType = headers["apns-push-type"];
    if (pushType !== undefined && !PUSH_TYPES.has(pushType)) return reason(400, "InvalidPushType");
    const priority = headers["apns-priority"];
    if (priority !== undefined && !["1", "5", "10"].includes(priority)) return reason(400, "BadPriority");
    const expiration = headers["apns-expiration"];
    if (expiration !== undefined && !/^\d+$/.test(expiration)) return reason(400, "BadExpirationDate");
    const collapseId = headers["apns-collapse-id"];
    if (collapseId !== undefined && Buffer.byteLength(collapseId) > 64) return reason(400, "BadCollapseId");
    return undefined;
  }

  async function route(req: AnyRequest): Promise<Answer> {
    const path = new URL(req.url ?? "/", "http://apns").pathname;
    const token = /^\/3\/device\/([^/]+)$/.exec(path)?.[1];
    if (token === undefined) return reason(404, "BadPath");
    if (req.method !== "POST") return reason(405, "MethodNotAllowed");
    const headers = headersOf(req);
    const refused = checkProviderToken(headers.authorization) ?? checkHeaders(headers);
    if (refused) {
      // Recorded too (no payload read), so a developer sees why nothing arrived.
      received.add({ service: "apns", status: refused[0], device: token.toLowerCase(), error: (refused[1] as { reason: string }).reason, httpVersion: req.httpVersion });
      return refused;
    }
    if (!/^[0-9a-fA-F]{64}$/.test(token)) return reason(400, "BadDeviceToken");
    const body = await readBody(req, MAX_PAYLOAD_BYTES);
    if (body === undefined) return reason(413, "PayloadTooLarge");
    let payload: { aps?: { alert?: { title?: string; body?: string } | string; badge?: number } };
    try {
      payload = JSON.parse(body.toString("utf8")) as typeof payload;
    } catch {
      return reason(400, "PayloadEmpty");
    }
    if (!payload || typeof payload.aps !== "object") return reason(400, "PayloadEmpty");
    const alert = typeof payload.aps.alert === "string" ? { title: payload.aps.alert } : payload.aps.alert;
    const { authorization: _secret, ...shown } = headers;
    const record = (status: number, error?: string) =>
      received.add({ service: "apns", status, device: token.toLowerCase(), error, title: alert?.title, body: alert?.body, badge: payload.aps!.badge, payload, headers: shown, httpVersion: req.httpVersion });

    const goneAt = unregistered.get(token.toLowerCase());
    if (goneAt !== undefined) {
      record(410, "Unregistered");
      return [410, { reason: "Unregistered", timestamp: goneAt }, { "apns-id": randomUUID() }];
    }
    if (wrongEnvironment.has(token.toLowerCase())) {
      record(400, "BadDeviceToken");
      return reason(400, "BadDeviceToken");
    }
    const throttle = throttled.get(token.toLowerCase());
    if (throttle && throttle.count > 0) {
      throttle.count -= 1;
      if (throttle.count === 0) throttled.delete(token.toLowerCase());
      record(429, "TooManyRequests");
      return reason(429, "TooManyRequests", { "retry-after": String(throttle.retryAfterSeconds) });
    }
    record(200);
    return [200, undefined, { "apns-id": headers["apns-id"] ?? randomUUID() }];
  }

  const handle = (req: AnyRequest, res: AnyResponse) => {
    route(req).then(
      (answer) => sendAnswer(res, answer),
      (error: unknown) => sendAnswer(res, reason(500, `InternalServerError: ${String(error)}`)),
    );
  };
  const http1: Http1Server = createHttp1Server(handle);
  const http2: Http2Server = createHttp2Server(handle);
  // Node's HTTP/2 session reads its socket's handle directly, past anything put back in the stream
  // (`unshift`), so an HTTP/2 connection is relayed to the HTTP/2 server's own port with its first
  // bytes; an HTTP/1.1 one is handed to the HTTP/1.1 server with them put back.
  await listen(http2);
  const http2Port = (http2.address() as AddressInfo).port;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => (sockets.add(socket), socket.once("close", () => sockets.delete(socket)));
  const front = createNetServer((socket) => {
    track(socket);
    socket.once("data", (first: Buffer) => {
      if (first.toString("latin1", 0, HTTP2_PREFACE.length) !== HTTP2_PREFACE) {
        socket.pause();
        socket.unshift(first);
        http1.emit("connection", socket);
        socket.resume();
        return;
      }
      const relay = track(connect(http2Port, "127.0.0.1"));
      relay.write(first);
      socket.pipe(relay).pipe(socket);
      relay.once("error", () => socket.destroy());
      socket.once("error", () => relay.destroy());
    });
  });
  await listen(front);

  const bounded = (token: string) => {
    if (unregistered.size + wrongEnvironment.size + throttled.size >= MAX_CONTROLLED_TOKENS) throw new Error("too many controlled APNs tokens");
    return token.toLowerCase();
  };
  return {
    url: `http://127.0.0.1:${(front.address() as AddressInfo).port}`,
    markUnregistered: (token, timestamp = Date.now()) => void unregistered.set(bounded(token), timestamp),
    markWrongEnvironment: (token) => void wrongEnvironment.add(bounded(token)),
    throttle: (token, count, retryAfterSeconds) => void throttled.set(bounded(token), { count, retryAfterSeconds }),
    get tokenUpdates() {
      return tokenUpdates;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      http1.close();
      await new Promise<void>((resolve) => http2.close(() => resolve()));
    },
  };
}

function listen(server: NetServer | Http2Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
}
