/**
 * A web page on another origin uses `community-edge/client` (bundled with esbuild, as an app's
 * bundler would) with a token from the identity provider: typed calls through CORS (a GET, a POST
 * with a JSON body, an error envelope, a 404), the exposed X-Request-Id, and a live badge socket
 * that receives a change pushed while it is open. The same page served from an origin that
 * CORS_ORIGINS does not list is refused by the browser, for HTTP and for the socket.
 */
import type { BrowserCheckContext } from "../check-browser.js";

export const name = "cors";

/** The page's script: runs in Chromium, reports through `window.RESULT`. */
const PAGE = `
import { connectBadges, createClient } from "community-edge/client";
const { baseUrl, token, expectBlocked } = window.CHECK;
const out = { origin: location.origin };
const api = createClient({ baseUrl, token: () => token });
try {
  if (expectBlocked) {
    out.http = await api.GET("/v1/me/badges").then((r) => "answered " + r.response.status, (e) => "blocked: " + e.name);
    out.socket = await new Promise((resolve) => {
      const ws = new WebSocket(baseUrl.replace(/^http/, "ws") + "/v1/me/live", ["live", token]);
      ws.onopen = () => resolve("opened");
      ws.onclose = (e) => resolve("refused (close " + e.code + ")");
    });
  } else {
    const badges = await api.GET("/v1/me/badges", { params: { query: { cap: 99 } } });
    out.badges = { status: badges.response.status, dms: badges.data?.dms.count, requestId: badges.response.headers.get("X-Request-Id") };
    const post = await api.POST("/v1/posts", { body: { text: "hello from " + location.origin } });
    out.post = { status: post.response.status, authorId: post.data?.authorId };
    const anonymous = await createClient({ baseUrl }).GET("/v1/me/badges");
    out.unauthorized = { status: anonymous.response.status, code: anonymous.error?.error.code };
    const missing = await fetch(baseUrl + "/v1/no-such-route");
    out.notFound = { status: missing.status, code: (await missing.json()).error.code };
    out.live = await new Promise((resolve) => {
      const live = connectBadges({ baseUrl, token: () => token, cap: 99 });
      const finish = (result) => {
        clearTimeout(timer);
        stop(); // before close(): closing reports a status change to the listeners
        live.close();
        resolve(result);
      };
      const timer = setTimeout(() => finish({ timedOut: true }), 20000);
      const stop = live.subscribe(({ badges }) => {
        if (!badges) return;
        window.SNAPSHOT = true;
        if (badges.dms.count >= 1) finish({ dms: badges.dms.count });
      });
    });
  }
} catch (error) {
  out.error = String(error && error.stack || error);
}
window.RESULT = out;
`;

export async function run(ctx: BrowserCheckContext): Promise<string> {
  const me = String(100_000 + Math.floor(Math.random() * 1e9));
  const peer = String(200_000 + Math.floor(Math.random() * 1e9));
  const token = await ctx.token(me, { alg: "ES256" });
  const script = await ctx.bundle(PAGE);
  const page = (expectBlocked: boolean) =>
    `<!doctype html><meta charset="utf-8"><title>cors check</title><script>window.CHECK = ${JSON.stringify({ baseUrl: ctx.baseUrl, token, expectBlocked })}</script><script type="module" src="/app.js"></script>`;
  const allowedUrl = await ctx.serve({ "/index.html": page(false), "/app.js": script });
  const blockedUrl = (await ctx.serve({ "/index.html": page(true), "/app.js": script })).replace("//localhost:", "//127.0.0.1:");

  const tab = await ctx.browser.newPage();
  const consoleLines: string[] = [];
  tab.on("console", (m) => void consoleLines.push(m.text()));
  tab.on("pageerror", (e) => void consoleLines.push(`page error: ${e instanceof Error ? e.message : String(e)}`));
  tab.on("requestfailed", (r) => void consoleLines.push(`request failed: ${r.method()} ${r.url()} ${r.failure()?.errorText ?? ""}`));
  try {
    await tab.goto(allowedUrl);
    await tab.waitForFunction("window.SNAPSHOT === true || window.RESULT", { timeout: 30_000 });
    // A change while the socket is open: one more unread DM, from a trusted backend.
    const pushed = await fetch(`${ctx.baseUrl}/v1/dms/${me}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${await ctx.token(peer, { role: "service" })}`, "content-type": "application/json" },
      body: JSON.stringify({ from: peer }),
    });
    if (!pushed.ok) throw new Error(`POST /v1/dms → ${pushed.status} ${await pushed.text()}`);
    await tab.waitForFunction("window.RESULT", { timeout: 30_000 });
    const r = (await tab.evaluate("window.RESULT")) as Record<string, any>;
    const expect = (ok: boolean, what: string) => {
      if (!ok) throw new Error(`${what}: ${JSON.stringify(r)}${consoleLines.length ? ` console: ${consoleLines.join(" | ")}` : ""}`);
    };
    expect(!r.error, "the page threw");
    expect(r.badges?.status === 200 && typeof r.badges.requestId === "string", "GET /v1/me/badges with the exposed X-Request-Id");
    expect(r.post?.status === 201 && r.post.authorId === me, "POST /v1/posts (JSON body: preflighted) as the token's user");
    expect(r.unauthorized?.status === 401 && r.unauthorized.code === "unauthorized", "a 401's error envelope readable cross-origin");
    expect(r.notFound?.status === 404 && r.notFound.code === "not_found", "a 404's error envelope readable cross-origin");
    expect(r.live?.dms >= 1, "the badge socket delivers the pushed DM");

    await tab.goto(blockedUrl);
    await tab.waitForFunction("window.RESULT", { timeout: 30_000 });
    const b = (await tab.evaluate("window.RESULT")) as Record<string, any>;
    if (!/^blocked/.test(b.http ?? "") || !/^refused/.test(b.socket ?? "")) throw new Error(`a page on ${b.origin} was not refused: ${JSON.stringify(b)}`);
    return `${r.origin} → ${ctx.baseUrl}: badges 200 (X-Request-Id readable), post 201 as ${me} (ES256 token via JWKS), 401 and 404 envelopes readable, live DM count ${r.live.dms}; ${b.origin}: HTTP ${b.http}, socket ${b.socket}`;
  } catch (error) {
    if (error instanceof Error && consoleLines.length > 0 && !error.message.includes(" console: ")) error.message += ` (page console: ${consoleLines.join(" | ")})`;
    throw error;
  } finally {
    await tab.close();
  }
}
