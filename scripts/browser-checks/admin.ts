/**
 * The operator console in a real browser: open `/admin`, paste an admin token, see a card per
 * area and the charts drawn from the server's history (six hours of points staged in
 * `ops:history` as the flush cron writes them, with an incident three hours ago), and replay a dead
 * letter staged for the occasion (a follower's timeline made the wrong type, so a post's fan-out
 * page fails every retry and lands in the dead letters; the timeline is repaired, then the page's
 * Replay button sends it again). Screenshots: /tmp/admin-console.png (desktop, the dead letter
 * listed) and /tmp/admin-console-phone.png (a phone's width).
 */
import type { Page } from "puppeteer-core";
import type { BrowserCheckContext } from "../check-browser.js";

export const name = "admin console: token, cards, charts from the history, replay a dead letter";

/** Minutes of history staged before the page opens. */
const STAGED_MINUTES = 6 * 60;

const CARDS = ["card-dependencies", "card-counters", "card-feed", "card-badges", "card-broadcasts", "card-live", "card-cron"];

async function redisCommand(ctx: BrowserCheckContext, command: (string | number)[]) {
  const res = await fetch(ctx.redis.restUrl, { method: "POST", headers: { Authorization: `Bearer ${ctx.redis.restToken}` }, body: JSON.stringify(command) });
  if (!res.ok) throw new Error(`redis ${command[0]}: ${res.status} ${await res.text()}`);
}

async function api(ctx: BrowserCheckContext, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${ctx.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json().catch(() => null)) as any;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s (last: ${JSON.stringify(value).slice(0, 300)})`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function run(ctx: BrowserCheckContext) {
  const admin = await ctx.token("1", { role: "admin" });
  const suffix = String(Date.now() % 1_000_000_000);
  const [author, follower] = [`7${suffix}`, `8${suffix}`];

  // Stage a dead letter: follow, let the sync settle, break the follower's timeline, post.
  await api(ctx, "PUT", `/v1/me/following/${author}`, await ctx.token(follower));
  await new Promise((r) => setTimeout(r, 2_000));
  await redisCommand(ctx, ["SET", `feed:tl:${follower}`, "not a sorted set"]);
  const post = await api(ctx, "POST", "/v1/posts", await ctx.token(author), { text: "staged for the console check" });
  ctx.log(`post ${post.id} published; its fan-out fails until feed:tl:${follower} is repaired`);

  // Stage six hours of history as the flush cron writes it (member = the point's JSON, score = its
  // minute), with a flush lag that climbed to 3 minutes three hours ago and dead letters since.
  const minuteNow = Math.floor(Date.now() / 60_000) * 60_000;
  const staged: (string | number)[] = ["ZADD", "ops:history"];
  for (let i = STAGED_MINUTES; i >= 1; i--) {
    const lag = i <= 190 && i > 170 ? (190 - i) * 9_000 : 0;
    const point = { at: new Date(minuteNow - i * 60_000).toISOString(), flushLagMs: lag, pendingFields: 40 + (i % 30), unappliedBatches: lag ? 3 : 0, fanoutP99Ms: 200 + (lag ? 4_000 : 0), deadLetters: i <= 180 ? 1 : 0 };
    staged.push(minuteNow - i * 60_000, JSON.stringify(point));
  }
  await redisCommand(ctx, staged);

  const page: Page = await ctx.browser.newPage();
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err instanceof Error ? err.message : String(err)}`));
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console error: ${m.text()}`);
  });
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} for ${r.url()}`);
  });
  page.on("request", (r) => {
    if (!r.url().startsWith(ctx.baseUrl) && !r.url().startsWith("data:")) problems.push(`request to another origin: ${r.url()}`);
  });
  await page.setViewport({ width: 1280, height: 900 });
  const res = await page.goto(`${ctx.baseUrl}/admin`, { waitUntil: "load" });
  if (res?.status() !== 200) throw new Error(`/admin answered ${res?.status()}`);
  ctx.log(`CSP: ${res.headers()["content-security-policy"]}`);

  // Paste the token once.
  await page.waitForSelector("#login:not([hidden]) #token");
  await page.type("#token", admin);
  await page.click("#login button[type=submit]");
  await page.waitForFunction((ids: string[]) => ids.every((id) => (globalThis as any).document.getElementById(id)), { timeout: 15_000 }, CARDS);
  const levels = await page.$$eval(".card", (cards) => cards.map((c) => `${(c as any).id.replace("card-", "")}=${c.getAttribute("data-level")}`));
  ctx.log(`cards: ${levels.join(" ")}`);
  if (await page.$eval("#login", (f) => (globalThis as any).getComputedStyle(f).display !== "none")) throw new Error("the token form is still shown after the token was given");
  const kept = await page.evaluate(() => (globalThis as any).sessionStorage.getItem("community-edge-admin-token") !== null);
  if (!kept) throw new Error("the token was not kept in sessionStorage");

  // The charts open with the history: the flush-lag line holds the staged points (and the cron's own, if it ran).
  const drawn = await until(
    "the flush-lag chart drawn from the history",
    () =>
      page.$eval('figure[data-series="flushLag"]', (f) => ({
        points: [...f.querySelectorAll("polyline")].reduce((n, l) => n + (l.getAttribute("points") ?? "").split(" ").filter(Boolean).length, 0),
        caption: (f.querySelector("figcaption") as any)?.textContent ?? "",
      })),
    (d) => d.points >= STAGED_MINUTES,
    20_000,
  );
  ctx.log(`flush-lag chart on open: ${drawn.points} points, "${drawn.caption}"`);
  if (!drawn.caption.includes("(6 h)")) throw new Error(`the flush-lag chart should span the six staged hours: "${drawn.caption}"`);

  // The dead letter shows up in the table (the page polls every 5 s).
  await until(
    "dead letter of the staged post in the page's table",
    () => page.$$eval("#dead-body tr", (rows) => rows.map((r) => (r as any).textContent ?? "")),
    (rows) => rows.some((t) => t.includes(`post ${post.id}`)),
  );
  const row = await page.$$eval("#dead-body tr", (rows, id) => rows.find((r) => ((r as any).textContent ?? "").includes(`post ${id}`))!.getAttribute("data-id"), post.id);
  const feedCard = await page.$eval("#card-feed", (c) => c.getAttribute("data-level"));
  ctx.log(`dead letter ${row} listed; feed card ${feedCard}`);
  if (feedCard === "green") throw new Error("the feed card stayed green with a dead letter waiting");
  await page.screenshot({ path: "/tmp/admin-console.png", fullPage: true });

  // Repair the cause, then press Replay.
  await redisCommand(ctx, ["DEL", `feed:tl:${follower}`]);
  await page.click(`#dead-body button[data-action="replay"][data-id="${row}"]`);
  await until("the page to say it replayed", () => page.$eval("#action", (s) => (s as any).textContent ?? ""), (t) => t.includes("replayed 1"), 15_000);
  await until(
    "the replayed dead letter to leave the table",
    () => page.$$eval("#dead-body tr", (rows) => rows.map((r) => r.getAttribute("data-id"))),
    (ids) => !ids.includes(row),
    20_000,
  );
  const left = await api(ctx, "GET", "/v1/admin/dead-letters?queue=feed-fanout&limit=100", admin);
  if (left.items.some((d: { id: string }) => d.id === row)) throw new Error(`dead letter ${row} still listed after its replay`);
  ctx.log(`dead letter ${row} replayed and gone`);

  // A phone's width: one column of cards.
  await page.setViewport({ width: 390, height: 844, isMobile: true, deviceScaleFactor: 2 });
  await new Promise((r) => setTimeout(r, 300));
  const columns = await page.$eval("#cards", (c) => (globalThis as any).getComputedStyle(c).gridTemplateColumns.split(" ").length);
  await page.screenshot({ path: "/tmp/admin-console-phone.png", fullPage: true });
  ctx.log(`phone width: ${columns} column(s) of cards; screenshots /tmp/admin-console.png, /tmp/admin-console-phone.png`);
  if (columns !== 1) throw new Error(`expected one column of cards on a phone, got ${columns}`);
  if (problems.length) throw new Error(problems.join("\n"));
  await page.close();
}
