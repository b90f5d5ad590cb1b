/**
 * A local stand-in for Google's side of FCM HTTP v1, as strict as the real one where our code
 * could be wrong:
 *
 *   POST /token                                  the OAuth token endpoint (the service account's
 *        `token_uri`): takes the RS256 assertion (RFC 7523), checks its signature against the
 *        service account's public key, `iss`, `scope`, `aud` and its lifetime (≤ 1 h), and answers
 *        `{access_token, expires_in, token_type}`; a bad assertion is 400 `invalid_grant`.
 *   POST /v1/projects/{project}/messages:send    checks the bearer access token (401
 *        UNAUTHENTICATED when unknown or expired), the project, and the message (400
 *        INVALID_ARGUMENT naming the field); answers a token marked unregistered with FCM's 404
 *        UNREGISTERED body and a throttled one with 429 QUOTA_EXCEEDED and `Retry-After`;
 *        records each message it answered. A message to a `topic` (a broadcast) is recorded once,
 *        as device `/topics/{topic}`, with the number of tokens subscribed to it (`reached`).
 *   POST   /v1/projects/{project}/registrations/{token}/topicSubscriptions?topic_name={topic}
 *   DELETE /v1/projects/{project}/registrations/{token}/topicSubscriptions/{topic}[?allowMissing=true]
 *        FCM's topic subscription API: the same bearer check; subscribe answers the subscription
 *        (409 ALREADY_EXISTS when it exists), unsubscribe `{}` (404 NOT_FOUND when it does not,
 *        unless `allowMissing`); an unregistered token is 404 UNREGISTERED.
 *
 * Control (the push services' control API calls these): `markUnregistered(token)`,
 * `throttle(token, count, retryAfterSeconds)`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { headersOf, parseJwt, publicKeyOf, readBody, sendAnswer, signedBy, type Answer, type AnyRequest } from "./standin-http.js";
import type { ReceivedLog } from "./received.js";

const FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging";
const ACCESS_TOKEN_SECONDS = 3600;
const MAX_ASSERTION_SECONDS = 3600;
/** Clock skew tolerated on `iat`. */
const SKEW_SECONDS = 60;
/** FCM's limit on a message (4 KB payload; the JSON around it is allowed a little more). */
const MAX_BODY_BYTES = 64 * 1024;
/** Bound on what the control API can accumulate. */
const MAX_CONTROLLED_TOKENS = 10_000;
/** Bound on the subscriptions kept (all topics). */
const MAX_SUBSCRIPTIONS = 100_000;
/** Bound on the topics whose subscription calls are counted. */
const MAX_COUNTED_TOPICS = 10_000;
/** FCM's topic names. */
const TOPIC_NAME = /^[a-zA-Z0-9\-_.~%]{1,900}$/;
const MAX_ACCESS_TOKENS = 10_000;

export interface FcmServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  private_key_id?: string;
}

export interface FcmStandIn {
  /** Origin for FCM_API_URL. */
  url: string;
  /** The token endpoint, the service account's `token_uri`. */
  tokenUri: string;
  markUnregistered(token: string): void;
  /** The next `count` sends to `token` answer 429 with `Retry-After: retryAfterSeconds`. */
  throttle(token: string, count: number, retryAfterSeconds: number): void;
  /** Access tokens issued so far (each a token exchange). */
  readonly exchanges: number;
  /** The tokens subscribed to `topic`. */
  subscribers(topic: string): string[];
  /** Subscription calls (subscribe or unsubscribe, any answer past the bearer check) made for `topic`. */
  subscriptionCalls(topic: string): number;
  close(): Promise<void>;
}

/** FCM's error body: `{error: {code, message, status, details: [FcmError {errorCode}]}}`. */
export function fcmError(code: number, status: string, message: string, errorCode?: string): Answer {
  const details = errorCode ? [{ "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode }] : [];
  return [code, { error: { code, message, status, details } }];
}

export async function startFcmStandIn({ account, received }: { account: FcmServiceAccount; received: ReceivedLog }): Promise<FcmStandIn> {
  const publicKey: KeyObject = publicKeyOf(account.private_key);
  const accessTokens = new Map<string, number>(); // token → expires at (ms)
  const unregistered = new Set<string>();
  const throttled = new Map<string, { count: number; retryAfterSeconds: number }>();
  const topics = new Map<string, Set<string>>(); // topic → subscribed tokens
  let subscriptions = 0;
  // Calls per topic, for tests that check what a change did not call; the oldest topic goes past the bound.
  const calls = new Map<string, number>();
  const countCall = (topic: string) => {
    calls.set(topic, (calls.get(topic) ?? 0) + 1);
    if (calls.size > MAX_COUNTED_TOPICS) calls.delete(calls.keys().next().value!);
  };
  let exchanges = 0;
  let tokenUri = "";

  function exchange(form: URLSearchParams): Answer {
    const invalid = (description: string): Answer => [400, { error: "invalid_grant", error_description: description }];
    if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") return [400, { error: "unsupported_grant_type", error_description: "Invalid grant_type" }];
    const jwt = parseJwt(form.get("assertion") ?? "");
    if (!jwt) return invalid("Invalid JWT: malformed assertion");
    if (!signedBy(jwt, publicKey, "RS256")) return invalid("Invalid JWT Signature.");
    if (account.private_key_id && jwt.header.kid !== undefined && jwt.header.kid !== account.private_key_id) return invalid("Invalid JWT: unknown kid");
    const { iss, scope, aud, iat, exp } = jwt.claims;
    const now = Date.now() / 1000;
    if (iss !== account.client_email) return invalid("Invalid JWT: iss is not the service account's client_email");
    if (typeof scope !== "string" || !scope.split(" ").includes(FCM_SCOPE)) return invalid(`Invalid JWT: scope must include ${FCM_SCOPE}`);
    if (aud !== tokenUri) return invalid(`Invalid JWT: aud must be the token_uri ${tokenUri}`);
    if (typeof iat !== "number" || typeof exp !== "number") return invalid("Invalid JWT: iat and exp are required");
    if (iat > now + SKEW_SECONDS || exp <= now) return invalid("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values");
    if (exp - iat > MAX_ASSERTION_SECONDS) return invalid("Invalid JWT: Token must be a short-lived token (60 minutes)");
    const token = `ya29.local-${randomBytes(24).toString("base64url")}`;
    if (accessTokens.size >= MAX_ACCESS_TOKENS) accessTokens.clear();
    accessTokens.set(token, Date.now() + ACCESS_TOKEN_SECONDS * 1000);
    exchanges += 1;
    return [200, { access_token: token, expires_in: ACCESS_TOKEN_SECONDS, token_type: "Bearer" }];
  }

  /** The bearer access token is one this stand-in issued and it has not expired. */
  function authorized(authorization: string | undefined): boolean {
    const bearer = /^Bearer (\S+)$/i.exec(authorization ?? "")?.[1];
    const expiresAt = bearer ? accessTokens.get(bearer) : undefined;
    return expiresAt !== undefined && expiresAt > Date.now();
  }
  const unauthenticated = () =>
    fcmError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.");

  /** FCM's topic subscription API: one token and one topic per call. */
  function subscription(method: string, project: string, token: string, topic: string, allowMissing: boolean, authorization: string | undefined): Answer {
    if (!authorized(authorization)) return unauthenticated();
    countCall(topic);
    if (project !== account.project_id) return fcmError(403, "PERMISSION_DENIED", `Permission denied on project ${project}`);
    if (!TOPIC_NAME.test(topic)) return fcmError(400, "INVALID_ARGUMENT", "Invalid topic name", "INVALID_ARGUMENT");
    if (unregistered.has(token)) return fcmError(404, "NOT_FOUND", "Requested entity was not found.", "UNREGISTERED");
    const members = topics.get(topic);
    if (method === "DELETE") {
      if (!members?.delete(token)) return allowMissing ? [200, {}] : fcmError(404, "NOT_FOUND", "Topic subscription not found.");
      subscriptions -= 1;
      return [200, {}];
    }
    if (members?.has(token)) return fcmError(409, "ALREADY_EXISTS", "Topic subscription already exists.");
    if (subscriptions >= MAX_SUBSCRIPTIONS) return fcmError(429, "RESOURCE_EXHAUSTED", "too many subscriptions in this stand-in");
    if (members) members.add(token);
    else topics.set(topic, new Set([token]));
    subscriptions += 1;
    return [200, { name: `projects/${project}/registrations/${token}/topicSubscriptions/${topic}`, topic_name: topic, create_time: new Date().toISOString() }];
  }

  function send(project: string, authorization: string | undefined, text: string, headers: Record<string, string>): Answer {
    if (!authorized(authorization)) {
      // Recorded too, under the message's token when it has one, so a developer sees why nothing arrived.
      received.add({ service: "fcm", status: 401, device: tokenIn(text) ?? "(no token)", error: "UNAUTHENTICATED" });
      return unauthenticated();
    }
    if (project !== account.project_id) return fcmError(403, "PERMISSION_DENIED", `Permission denied on project ${project}`, "SENDER_ID_MISMATCH");
    let body: { message?: Record<string, unknown> };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      return fcmError(400, "INVALID_ARGUMENT", "Invalid JSON payload received.", "INVALID_ARGUMENT");
    }
    const problem = messageProblem(body?.message);
    if (problem) return fcmError(400, "INVALID_ARGUMENT", problem, "INVALID_ARGUMENT");
    const message = body.message!;
    if (typeof message.topic === "string") {
      // One send for every token subscribed to the topic: FCM fans it out.
      const notification = message.notification as { title?: string; body?: string } | undefined;
      const reached = topics.get(message.topic)?.size ?? 0;
      received.add({ service: "fcm", status: 200, device: `/topics/${message.topic}`, reached, title: notification?.title, body: notification?.body, payload: message, headers });
      return [200, { name: `projects/${project}/messages/${Date.now()}` }];
    }
    const token = message.token as string;
    const record = (status: number, error?: string) => {
      const android = message.android as { notification?: { notification_count?: number } } | undefined;
      const notification = message.notification as { title?: string; body?: string } | undefined;
      received.add({ service: "fcm", status, device: token, error, title: notification?.title, body: notification?.body, badge: android?.notification?.notification_count ?? badgeOf(message.data), payload: message, headers });
    };
    if (unregistered.has(token)) {
      record(404, "UNREGISTERED");
      return fcmError(404, "NOT_FOUND", "Requested entity was not found.", "UNREGISTERED");
    }
    const throttle = throttled.get(token);
    if (throttle && throttle.count > 0) {
      throttle.count -= 1;
      if (throttle.count === 0) throttled.delete(token);
      record(429, "QUOTA_EXCEEDED");
      const [status, errorBody] = fcmError(429, "RESOURCE_EXHAUSTED", "Quota exceeded for the device.", "QUOTA_EXCEEDED");
      return [status, errorBody, { "retry-after": String(throttle.retryAfterSeconds) }];
    }
    record(200);
    return [200, { name: `projects/${project}/messages/0:${Date.now()}%${randomBytes(8).toString("hex")}` }];
  }

  async function route(req: AnyRequest): Promise<Answer> {
    const url = new URL(req.url ?? "/", "http://fcm");
    const path = url.pathname;
    const method = req.method ?? "GET";
    if (method !== "POST" && method !== "DELETE") return fcmError(405, "INVALID_ARGUMENT", `${method} is not supported`);
    const body = await readBody(req, MAX_BODY_BYTES);
    if (body === undefined) return fcmError(400, "INVALID_ARGUMENT", "Request payload size exceeds the limit", "INVALID_ARGUMENT");
    const subscribe = /^\/v1\/projects\/([^/]+)\/registrations\/([^/]+)\/topicSubscriptions(?:\/([^/]+))?$/.exec(path);
    if (subscribe) {
      const [, project, token, named] = subscribe;
      const topic = method === "POST" && named === undefined ? url.searchParams.get("topic_name") : method === "DELETE" ? named : undefined;
      if (topic === undefined || topic === null) return fcmError(400, "INVALID_ARGUMENT", "topic_name is required (POST …/topicSubscriptions?topic_name=, DELETE …/topicSubscriptions/{topic})", "INVALID_ARGUMENT");
      return subscription(method, decodeURIComponent(project!), decodeURIComponent(token!), decodeURIComponent(topic), url.searchParams.get("allowMissing") === "true", req.headers.authorization);
    }
    if (method !== "POST") return fcmError(405, "INVALID_ARGUMENT", `${method} is not supported`);
    if (path === "/token") return exchange(new URLSearchParams(body.toString("utf8")));
    const project = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(path)?.[1];
    if (project !== undefined) return send(decodeURIComponent(project), req.headers.authorization, body.toString("utf8"), headersOf(req));
    return fcmError(404, "NOT_FOUND", `no route ${path}`);
  }

  const server: Server = createServer((req, res) => {
    route(req).then(
      (answer) => sendAnswer(res, answer),
      (error: unknown) => sendAnswer(res, fcmError(500, "INTERNAL", String(error))),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  tokenUri = `${url}/token`;

  const bounded = (token: string) => {
    if (unregistered.size + throttled.size >= MAX_CONTROLLED_TOKENS) throw new Error("too many controlled FCM tokens");
    return token;
  };
  return {
    url,
    tokenUri,
    markUnregistered: (token) => void unregistered.add(bounded(token)),
    throttle: (token, count, retryAfterSeconds) => void throttled.set(bounded(token), { count, retryAfterSeconds }),
    get exchanges() {
      return exchanges;
    },
    subscribers: (topic) => [...(topics.get(topic) ?? [])],
    subscriptionCalls: (topic) => calls.get(topic) ?? 0,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What FCM would refuse in a v1 message (the fields our sender uses), or undefined. */
export function messageProblem(message: Record<string, unknown> | undefined): string | undefined {
  if (!message || typeof message !== "object") return "message is required";
  const targets = ["token", "topic", "condition"].filter((t) => message[t] !== undefined);
  if (targets.length !== 1) return "message must have exactly one of token, topic, condition";
  if (message.token !== undefined && (typeof message.token !== "string" || message.token === "")) return "message.token must be a non-empty string";
  if (message.topic !== undefined && (typeof message.topic !== "string" || !TOPIC_NAME.test(message.topic))) return "message.topic must be a topic name (without /topics/)";
  if (message.condition !== undefined) return "message.condition: this stand-in takes tokens and topics only";
  const data = message.data;
  if (data !== undefined && (typeof data !== "object" || Object.values(data as object).some((v) => typeof v !== "string"))) {
    return "Invalid value at 'message.data' (Map): every value must be a string";
  }
  const notification = message.notification as Record<string, unknown> | undefined;
  if (notification !== undefined && Object.entries(notification).some(([k, v]) => !["title", "body", "image"].includes(k) || typeof v !== "string")) {
    return "Invalid value at 'message.notification': title, body and image are strings";
  }
  const android = message.android as Record<string, unknown> | undefined;
  if (android !== undefined) {
    if (android.priority !== undefined && android.priority !== "NORMAL" && android.priority !== "HIGH") return "Invalid value at 'message.android.priority'";
    if (android.ttl !== undefined && !/^\d+(\.\d{1,9})?s$/.test(String(android.ttl))) return "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration)";
    const count = (android.notification as Record<string, unknown> | undefined)?.notification_count;
    if (count !== undefined && (!Number.isInteger(count) || (count as number) < 0)) return "Invalid value at 'message.android.notification.notification_count' (TYPE_INT32)";
  }
  return undefined;
}

/** A badge-only (data) message carries the count as `data.badge`. */
function badgeOf(data: unknown): number | undefined {
  const value = (data as Record<string, string> | undefined)?.badge;
  return value === undefined ? undefined : Number(value);
}

function tokenIn(text: string): string | undefined {
  try {
    const token = (JSON.parse(text) as { message?: { token?: unknown } }).message?.token;
    return typeof token === "string" ? token : undefined;
  } catch {
    return undefined;
  }
}
