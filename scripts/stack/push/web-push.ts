/**
 * `web-push-testing` as a supervised child of the stack (web-push-service.cjs), on a free port:
 * subscriptions are made with the deployment's VAPID public key as applicationServerKey, so the
 * service checks every push's VAPID signature against it; what it answered reaches the stack's
 * `ReceivedLog` over IPC, the decrypted payload read for title, body and badge.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../free-port.js";
import { stopChild, superviseServer, waitUntilServing } from "../processes.js";
import type { ReceivedLog } from "./received.js";

const LAUNCHER = join(fileURLToPath(new URL(".", import.meta.url)), "web-push-service.cjs");

/** A browser's push subscription as web-push-testing hands it out, plus its id there. */
export type TestSubscription = { endpoint: string; keys: { p256dh: string; auth: string }; clientHash: string };

export interface WebPushService {
  /** `http://localhost:PORT`: the origin of its endpoints (`/notify/<clientHash>`). */
  url: string;
  /** A new subscription, as `pushManager.subscribe({applicationServerKey})` would make one. */
  subscribe(): Promise<TestSubscription>;
  /** Later pushes to it answer 410 (the subscription expired). */
  expire(clientHash: string): Promise<void>;
  /** The running web-push-testing process (none while it is being restarted). */
  readonly pid: number | undefined;
  /** Resolves once every push it answered so far is in the log. */
  sync(): Promise<void>;
  stop(): Promise<void>;
}

type ChildRecord = { service: "webpush"; device: string; status: number; at: number; payload?: string; error?: string; headers?: Record<string, string | undefined> };

export async function startWebPushService({ vapidPublicKey, received, log = () => {} }: { vapidPublicKey: string; received: ReceivedLog; log?: (line: string) => void }): Promise<WebPushService> {
  // Resolved up front: a missing devDependency is one clear error, not a child that dies at once.
  createRequire(import.meta.url).resolve("web-push-testing/src/server.js");
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const waiting = new Map<string, () => void>();
  let syncs = 0;

  async function launch(): Promise<ChildProcess> {
    // Output ignored: what it answered arrives over IPC; its own lines repeat the errors recorded.
    const child = spawn(process.execPath, [LAUNCHER, String(port)], { stdio: ["ignore", "ignore", "ignore", "ipc"] });
    child.on("message", (message: { type: string; id?: string; record?: ChildRecord }) => {
      if (message.type === "received" && message.record) received.add(fromChild(message.record));
      if (message.type === "synced" && message.id) waiting.get(message.id)?.();
    });
    try {
      await waitUntilServing(child, `web-push-testing on ${url}`, async () => (await fetch(`${url}/status`, { method: "POST" })).ok);
    } catch (error) {
      await stopChild(child);
      throw error;
    }
    return child;
  }

  const what = `web-push-testing (port ${port})`;
  const server = await superviseServer({
    launch,
    onExit: (how) => log(`${what} exited ${how}; restarting it (its subscriptions are gone: subscribe again)`),
    onRestarted: () => log(`${what} is back`),
    onRestartFailed: (error) => log(`${what} could not be restarted (${String(error)}); Web Push stays down until the stack is started again`),
  });
  log(`push: web-push-testing on ${url}`);

  async function call(path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) });
    const text = await res.text();
    if (!res.ok) throw new Error(`web-push-testing ${path} answered ${res.status}: ${text}`);
    // `/expire-subscription` answers a plain "OK".
    return res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : undefined;
  }

  return {
    url,
    get pid() {
      return server.child?.pid;
    },
    async subscribe() {
      return ((await call("/subscribe", { applicationServerKey: vapidPublicKey })) as { data: TestSubscription }).data;
    },
    async expire(clientHash) {
      await call(`/expire-subscription/${encodeURIComponent(clientHash)}`);
    },
    sync() {
      const child = server.child;
      if (!child?.connected) return Promise.resolve();
      const id = String(++syncs);
      return new Promise<void>((resolve) => {
        const done = () => (waiting.delete(id), clearTimeout(timer), resolve());
        const timer = setTimeout(done, 5_000); // a child that died answers nothing: read what arrived
        waiting.set(id, done);
        child.send({ type: "sync", id });
      });
    },
    stop: () => server.stop(),
  };
}

/** The child's record with the notification read out of the decrypted payload (`{title, body, badge}`). */
function fromChild(record: ChildRecord) {
  let payload: unknown = record.payload;
  try {
    if (record.payload !== undefined) payload = JSON.parse(record.payload);
  } catch {
    // not JSON: kept as text
  }
  const shown = (payload ?? {}) as { title?: unknown; body?: unknown; badge?: unknown };
  return {
    service: "webpush" as const,
    at: record.at,
    status: record.status,
    device: record.device,
    error: record.error,
    title: typeof shown.title === "string" ? shown.title : undefined,
    body: typeof shown.body === "string" ? shown.body : undefined,
    badge: typeof shown.badge === "number" ? shown.badge : undefined,
    payload,
    headers: record.headers,
  };
}
