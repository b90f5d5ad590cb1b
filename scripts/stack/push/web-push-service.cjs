/**
 * `web-push-testing` (a local Web Push service: subscriptions, VAPID checked, `aes128gcm`
 * decrypted, subscriptions expired on request so later pushes get 410) run as a child of the
 * stack, with what its CLI lacks for a supervised, recording stand-in:
 *
 *  - it runs in the foreground on the port given (`node web-push-service.cjs <port>`), not as the
 *    CLI's detached daemon with a pid file in the working directory, and on loopback only;
 *  - it checks the VAPID claims the package leaves out (RFC 8292 §2: `aud` = this service's
 *    origin, `exp` at most 24 h ahead, `sub` a mailto: or https: URL) — the package itself checks
 *    the ES256 signature against the subscription's applicationServerKey, `k`, and expiry;
 *  - every push it answers (delivered, refused or expired) is sent to the parent over IPC, with
 *    the decrypted payload and the headers that matter (TTL, Urgency, Topic), before its answer;
 *  - it exits when the parent is gone (IPC closed), so nothing is left behind by a hard kill.
 *
 * CommonJS because web-push-testing is; no TypeScript so it starts in plain `node`. It reaches into
 * the package's modules (src/server.js, src/PushApiModel.js), so the version is pinned exactly.
 */
"use strict";
const TestingServer = require("web-push-testing/src/server.js");
const { PushApiModel } = require("web-push-testing/src/PushApiModel.js");

const port = Number(process.argv[2]);
const origin = `http://localhost:${port}`;
const MAX_VAPID_SECONDS = 24 * 60 * 60;

const model = new PushApiModel();
const handle = model.handleNotification.bind(model);

function claimsOf(authorization) {
  const token = /(?:^|[\s,])t=([^,\s]+)/.exec(authorization || "")?.[1];
  if (!token) throw new RangeError("Invalid Authorization header sent");
  const part = token.split(".")[1] || "";
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    throw new RangeError("Invalid authentication token supplied");
  }
}

function checkVapidClaims(authorization) {
  const claims = claimsOf(authorization);
  if (claims.aud !== origin) throw new RangeError(`VAPID aud must be this push service's origin ${origin}, not ${claims.aud}`);
  if (typeof claims.exp !== "number" || claims.exp > Date.now() / 1000 + MAX_VAPID_SECONDS) throw new RangeError("VAPID exp must be at most 24 h ahead");
  if (typeof claims.sub !== "string" || !/^(mailto:.+|https:\/\/.+)$/.test(claims.sub)) throw new RangeError("VAPID sub must be a mailto: or https: URL");
}

// Express hands the handler only some headers; these are the rest a push service acts on.
let current = {};
model.handleNotification = async (clientHash, headers, body) => {
  const seen = { ...current };
  const record = { service: "webpush", device: clientHash, endpoint: `${origin}/notify/${clientHash}`, headers: { ttl: headers.ttl, ...seen } };
  try {
    if (model.subscriptions[clientHash] && !model.isSubscriptionExpired(clientHash) && headers.encoding === "aes128gcm") checkVapidClaims(headers.authorization);
    await handle(clientHash, headers, body);
    const messages = model.messages[clientHash];
    send({ ...record, status: 201, payload: messages[messages.length - 1] });
  } catch (error) {
    send({ ...record, status: error && error.name === "SubscriptionExpiredError" ? 410 : 400, error: String(error && error.message) });
    throw error;
  }
};

function send(record) {
  if (process.send) process.send({ type: "received", record: { ...record, at: Date.now() } });
}

const server = new TestingServer(model, port);
server._app.use("/notify/", (req, _res, next) => {
  current = { urgency: req.get("Urgency"), topic: req.get("Topic"), contentEncoding: req.get("X-Content-Encoding") };
  next();
});
// Loopback only (the package's startServer listens on every interface), on both loopback
// addresses: endpoints name `localhost`, which a client may resolve to either.
server.setRequestHandlers();
let listening = 0;
for (const host of ["127.0.0.1", "::1"]) {
  const listener = server._app.listen(port, host, () => {
    if (++listening === 1) console.log(`web-push-testing on ${origin}`);
  });
  listener.on("error", (error) => {
    // A machine without IPv6 loopback serves on 127.0.0.1 alone; any other failure ends the process.
    if (host === "::1" && (error.code === "EADDRNOTAVAIL" || error.code === "EAFNOSUPPORT")) return;
    console.error(error);
    process.exit(1);
  });
}

// The parent asks for a sync before it reads what was received: IPC is ordered, so every record
// sent before the answer has arrived by then.
process.on("message", (message) => {
  if (message && message.type === "sync" && process.send) process.send({ type: "synced", id: message.id });
});
process.on("disconnect", () => process.exit(0));
