/**
 * Every route against src/lib/route-access.ts: the table must list exactly the app's routes, and
 * each route is sent with no token, bad tokens, each role's token, and a user's token on another
 * user's resource, built from the OpenAPI document (path parameters, the request example) and
 * answered by the real stack.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { sign } from "hono/jwt";
import { afterEach, describe, expect, it } from "vitest";
import { newApp, openApiDocument } from "../../src/app";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { ROLES, type Role } from "../../src/lib/caller";
import { ROUTE_ACCESS, type Ownership, type RouteAccess } from "../../src/lib/route-access";
import { api, newId, show, tokenFor } from "../support/api";
import { claims, unsignedToken } from "../support/jwks";
import { newSubscriptionKeys, pushTestKeys } from "../support/push";
import { closeSockets, trackSocket } from "../support/sockets";

const app = newApp();
const doc = openApiDocument(app) as unknown as { paths: Record<string, Record<string, Operation | undefined>> };
const METHODS = ["get", "put", "post", "delete", "patch"] as const;
const table: Record<string, RouteAccess> = ROUTE_ACCESS;

type Parameter = { name: string; in: "path" | "query" | "header"; required?: boolean; schema?: { example?: unknown; enum?: unknown[]; pattern?: string } };
type Operation = { parameters?: Parameter[]; requestBody?: { content?: Record<string, { example?: unknown }> }; responses: Record<string, unknown>; security?: unknown[] };

/** Every operation of the document as `METHOD /template`. */
const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
  METHODS.flatMap((method) => (item[method] ? [{ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, op: item[method]! }] : [])),
);

/** Every route the app serves (the document's and the pages outside it), as the table names them. */
function servedRoutes(): string[] {
  const keys = app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`);
  return [...new Set(keys)].sort();
}

describe("src/lib/route-access.ts", () => {
  it("lists every route the app serves, and nothing else", () => {
    const served = servedRoutes();
    const listed = Object.keys(table).sort();
    expect(
      served.filter((key) => !listed.includes(key)),
      "routes missing from ROUTE_ACCESS: decide who may call them (roles and owner) in src/lib/route-access.ts",
    ).toEqual([]);
    expect(listed.filter((key) => !served.includes(key)), "ROUTE_ACCESS lists routes the app no longer serves").toEqual([]);
    expect(documented.length).toBeGreaterThan(60);
  });

  it("agrees with the document: a lock exactly on the routes that need a token (WebSockets carry theirs in the query)", () => {
    const disagreeing = documented.flatMap(({ key, op }) => {
      const locked = (op.security ?? []).length > 0;
      const needsToken = table[key]?.roles !== "public";
      return locked === needsToken || (needsToken && isSocket(op)) ? [] : [`${key}: ${locked ? "locked" : "open"} in the document, ${table[key]?.roles ?? "missing"} in the table`];
    });
    expect(disagreeing).toEqual([]);
  });
});

// ── Requests built from the document ─────────────────────────────────────────

/** What a test sets up before its request: an owner, and the post or live room the route names. */
interface World {
  owner: string;
  postId?: string;
  roomId?: string;
}

/** Who sends the request: no token, a bad one, or a role's token for `userId`. */
type Actor = { kind: "none" } | { kind: "malformed" } | { kind: "forged"; userId: string } | { kind: "unsigned"; userId: string } | { kind: "expired"; userId: string; role: Role } | { kind: "role"; userId: string; role: Role };

/** Requests whose document example is not enough to be served (ids that must be fresh or the world's, windows, …). */
const REQUESTS: Record<string, { query?: (w: World) => Record<string, string>; body?: (w: World, actor: Actor) => unknown; env?: () => Promise<Partial<Env>> }> = {
  // A user hosts themself (the owner, or a stranger trying the owner's room); services and admins start it for the owner.
  "POST /v1/live/{roomId}/sessions": { body: (w, actor) => ({ hostId: actor.kind === "role" && actor.role === "user" ? actor.userId : w.owner }) },
  "GET /v1/live/{roomId}/online": { query: () => ({ list: "fans" }) },
  "GET /v1/live/{roomId}/joined": { query: () => ({ from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() }) },
  "POST /v1/admin/counters/reconcile": { query: () => ({ entity: "user", ids: newId() }) },
  "POST /v1/messages": { body: () => ({ to: [newId()], type: "system", title: "Walk", content: "Every route" }) },
  "POST /v1/counters/{entity}/{id}": { body: () => ({ deltas: { comments: 1 } }) },
  "POST /v1/admin/dead-letters/replay": { body: () => ({ ids: [newId()] }) },
  // The caller's own id confirms it (the actor is a fresh user: the walk deletes nobody else).
  "DELETE /v1/me": { body: (_w, actor) => ({ confirm: "userId" in actor ? actor.userId : "1" }) },
  // A device of a provider the deployment has keys for (the Worker's own bindings have none).
  "PUT /v1/me/devices/{deviceId}": {
    env: pushEnv,
    body: async () => {
      const keys = await newSubscriptionKeys();
      return { kind: "webpush", endpoint: `https://fcm.googleapis.com/fcm/send/${crypto.randomUUID()}`, keys: { p256dh: keys.p256dh, auth: keys.auth } };
    },
  },
};

let pushKeys: Promise<Partial<Env>> | undefined;
function pushEnv(): Promise<Partial<Env>> {
  return (pushKeys ??= pushTestKeys().then((keys) => keys.env));
}

const ID_PATTERN = "^[1-9][0-9]{0,18}$";

const isSocket = (op: Operation) => "101" in op.responses;

/** The value of path parameter `name`: the world's post or room, a fresh id, else the document's example. */
function pathValue(path: string, param: Parameter | undefined, name: string, w: World): string {
  if (name === "roomId") return w.roomId!;
  if (name === "id" && path.startsWith("/v1/posts/{id}")) return w.postId!;
  if (param?.schema?.pattern === ID_PATTERN) return newId();
  const example = param?.schema?.example ?? param?.schema?.enum?.[0];
  if (example === undefined) throw new Error(`${path}: no example for path parameter ${name}`);
  return String(example);
}

async function tokenOf(actor: Actor): Promise<string | undefined> {
  switch (actor.kind) {
    case "none":
      return undefined;
    case "malformed":
      return "not-a-jwt";
    case "forged":
      return sign({ sub: actor.userId, role: "admin", exp: Math.floor(Date.now() / 1000) + 600 }, "not-the-deployment-secret", "HS256");
    case "unsigned":
      return unsignedToken(claims({ sub: actor.userId, role: "admin" }));
    case "expired":
      return tokenFor(actor.userId, actor.role, -60);
    case "role":
      return tokenFor(actor.userId, actor.role);
  }
}

type Answer = { request: string; status: number; body: any; socket: boolean };

/** Sends `key` as `actor` in world `w`: a header token, or for a WebSocket `?token=` and an upgrade. */
async function send(key: string, op: Operation, path: string, method: string, w: World, actor: Actor): Promise<Answer> {
  const params = new Map((op.parameters ?? []).map((p) => [`${p.in}:${p.name}`, p]));
  const url = new URL(`http://edge.test${path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(pathValue(path, params.get(`path:${name}`), name, w)))}`);
  for (const p of params.values()) {
    if (p.in !== "query" || !p.required) continue;
    url.searchParams.set(p.name, String(p.schema?.example ?? p.schema?.enum?.[0]));
  }
  for (const [name, value] of Object.entries(REQUESTS[key]?.query?.(w) ?? {})) url.searchParams.set(name, value);
  const headers = new Headers();
  const token = await tokenOf(actor);
  const socket = isSocket(op);
  if (socket) {
    headers.set("Upgrade", "websocket");
    if (token) url.searchParams.set("token", token);
  } else if (token) {
    headers.set("Authorization", `Bearer ${token}`);
  }
  const example = op.requestBody?.content?.["application/json"]?.example;
  const body = REQUESTS[key]?.body ? await REQUESTS[key].body(w, actor) : example;
  if (body !== undefined) headers.set("Content-Type", "application/json");
  const request = new Request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const res = await fetchWith(request, await REQUESTS[key]?.env?.());
  const sent = `${method} ${url.pathname}${url.search.replace(/token=[^&]+/, "token=…")}${body === undefined ? "" : ` ${JSON.stringify(body)}`} as ${actor.kind === "role" ? actor.role : actor.kind}`;
  if (res.status === 101) {
    trackSocket(res.webSocket!).accept(); // closed after the test
    return { request: sent, status: 101, body: null, socket };
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON (a page, a script): keep the text
  }
  return { request: sent, status: res.status, body: parsed, socket };
}

/** The Worker's answer: through SELF, or with `overrides` of its bindings in-process. */
async function fetchWith(request: Request, overrides: Partial<Env> | undefined): Promise<Response> {
  if (!overrides) return SELF.fetch(request);
  const ctx = createExecutionContext();
  const response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...(env as unknown as Env), ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** The world a route needs: its owner's post, or a live room its owner started. */
async function worldFor(path: string): Promise<World> {
  const w: World = { owner: newId() };
  if (path.startsWith("/v1/posts/{id}")) {
    const post = await api("POST", "/v1/posts", { as: { userId: w.owner }, body: { text: "walked" } });
    expect(post.status, show(post)).toBe(201);
    w.postId = post.body.id;
  }
  if (path.includes("{roomId}")) {
    w.roomId = `walk-${newId()}`;
    const started = await api("POST", `/v1/live/${w.roomId}/sessions`, { as: { userId: w.owner }, body: { hostId: w.owner } });
    expect(started.status, show(started)).toBe(201);
  }
  return w;
}

// ── The cases ────────────────────────────────────────────────────────────────

type Expected = "unauthorized" | "forbidden" | "served" | "no fan ids";
interface Case {
  name: string;
  actor: (w: World) => Actor;
  expected: Expected;
}

const OWNED: Partial<Record<Ownership, string>> = { "post-author": "post", "room-owner": "room", "room-fans": "room" };

function casesOf(access: RouteAccess): Case[] {
  const { roles, owner } = access;
  if (roles === "public") return [{ name: "serves a caller without a token", actor: () => ({ kind: "none" }), expected: "served" }];
  const what = OWNED[owner];
  const cases: Case[] = [
    { name: "401 without a token", actor: () => ({ kind: "none" }), expected: "unauthorized" },
    { name: "401 with a malformed token", actor: () => ({ kind: "malformed" }), expected: "unauthorized" },
    { name: "401 with a token signed with another secret", actor: (w) => ({ kind: "forged", userId: w.owner }), expected: "unauthorized" },
    { name: "401 with an unsigned token (alg none)", actor: (w) => ({ kind: "unsigned", userId: w.owner }), expected: "unauthorized" },
    { name: "401 with an expired token", actor: (w) => ({ kind: "expired", userId: w.owner, role: roles[0]! }), expected: "unauthorized" },
  ];
  const a = (role: Role) => `${role === "admin" ? "an" : "a"} ${role}`;
  for (const role of ROLES) {
    // A user acts as the world's owner (their own post or room); a service or an admin as themself.
    const actor = (w: World): Actor => ({ kind: "role", userId: role === "user" ? w.owner : newId(), role });
    if (!roles.includes(role)) cases.push({ name: `403 for ${a(role)}`, actor, expected: "forbidden" });
    else cases.push({ name: role === "user" && what ? `serves a user on their own ${what}` : `serves ${a(role)}`, actor, expected: "served" });
  }
  if (what && roles.includes("user")) {
    cases.push({
      name: `${owner === "room-fans" ? "no fan ids" : "403"} for a user on another user's ${what}`,
      actor: () => ({ kind: "role", userId: newId(), role: "user" }),
      expected: owner === "room-fans" ? "no fan ids" : "forbidden",
    });
  }
  return cases;
}

function check(answer: Answer, expected: Expected, access: RouteAccess) {
  const shown = `${answer.request} → ${answer.status} ${JSON.stringify(answer.body)}`;
  switch (expected) {
    case "unauthorized":
      expect(answer.status, shown).toBe(401);
      expect(answer.body?.error?.code, shown).toBe("unauthorized");
      return;
    case "forbidden":
      expect(answer.status, shown).toBe(403);
      expect(answer.body?.error?.code, shown).toBe("forbidden");
      return;
    case "no fan ids":
      // Refused, or answered without the ids.
      if (answer.status !== 403) {
        expect(answer.status, shown).toBe(200);
        expect(answer.body.items, shown).toBeNull();
      }
      return;
    case "served":
      // Past authentication and authorisation with a request the route accepts, and not a failure
      // (a 404 or 409 of the route itself is an answer: an unknown message, an author not followed).
      if (answer.socket) expect(answer.status, shown).toBe(101);
      else expect([400, 401, 403, 429].includes(answer.status) || answer.status >= 500, shown).toBe(false);
      if (access.owner === "room-fans") expect(Array.isArray(answer.body?.items), `fan ids expected: ${shown}`).toBe(true);
      return;
  }
}

afterEach(() => closeSockets());

/**
 * Every route the table lists: as the document describes it, or (the pages outside the document:
 * /docs, the console's files…) as a bare GET the same cases are sent to.
 */
const byKey = new Map(documented.map((route) => [route.key, route]));
const walked = servedRoutes()
  .filter((key) => table[key])
  .map((key) => {
    const [method, path] = key.split(" ") as [string, string];
    return { ...(byKey.get(key) ?? { key, method, path, op: { responses: {} } as Operation }), access: table[key]! };
  });

describe.each(walked)("$key", ({ key, method, path, op, access }) => {
  const cases = casesOf(access);
  const run = async ({ actor, expected }: Case) => {
    const w = await worldFor(path);
    check(await send(key, op, path, method, w, actor(w)), expected, access);
  };
  it.each(cases)("$name", run);
});

