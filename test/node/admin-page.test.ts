/**
 * The operator console's script against a DOM (happy-dom): every card renders from a recorded
 * status answer, the thresholds stated on the page colour them, the charts keep what they are
 * given, the dead-letter table has its buttons, and the page asks for a token once and polls.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Document, type Element, type HTMLFormElement, type HTMLInputElement, Window } from "happy-dom";
import { describe, expect, it } from "vitest";
import { eventually } from "../support/eventually";
import { ADMIN_APP_JS } from "../../src/admin/app-script";
import { renderAdminPage } from "../../src/admin/page";
import { StatusSchema } from "../../src/admin/routes";

const recorded = JSON.parse(readFileSync(join(import.meta.dirname, "fixtures/admin-status.json"), "utf8"));
const clone = () => structuredClone(recorded);

type Series = Record<string, { t: number; v: number }[]>;
type Console = {
  renderCards(doc: Document, container: Element, status: unknown, history?: unknown, now?: number): { id: string; level: string }[];
  renderDeadLetters(doc: Document, tbody: Element, page: unknown): void;
  renderReports(doc: Document, tbody: Element, page: unknown, now?: number): void;
  renderDeletions(doc: Document, tbody: Element, page: unknown, now?: number): void;
  record(history: Series, status: unknown, now?: number): Series;
  seed(history: Series, answer: unknown): Series;
};

/** The page in a fresh window with its script evaluated; `start` lets it run as in a browser. */
function page({ start = false, fetch }: { start?: boolean; fetch?: (url: string, init: RequestInit) => Promise<Response> } = {}) {
  const window = new Window({ url: "https://edge.example/admin" });
  const document = window.document;
  document.write(renderAdminPage().replace(/<script[^>]*><\/script>/, ""));
  const w = window as unknown as Record<string, unknown>;
  if (!start) w.ADMIN_CONSOLE_NO_START = true;
  if (fetch) w.fetch = fetch;
  window.eval(ADMIN_APP_JS);
  return { window, document, console: w.AdminConsole as Console };
}

const levels = (doc: Document) => Object.fromEntries([...doc.querySelectorAll(".card")].map((c) => [c.id, c.getAttribute("data-level")]));

describe("/admin page script", () => {
  it("is given a status answer of the API's own shape (the route's response schema)", () => {
    expect(StatusSchema.safeParse(recorded).error).toBeUndefined();
  });

  it("renders a card per area from a recorded status answer, all green when all is well", () => {
    const { document, console } = page();
    const cards = console.renderCards(document, document.getElementById("cards")!, clone());
    expect(cards.map((c) => c.id)).toEqual(["dependencies", "counters", "feed", "badges", "broadcasts", "live", "reports", "cron"]);
    expect(levels(document)).toEqual({
      "card-dependencies": "green",
      "card-counters": "green",
      "card-feed": "green",
      "card-badges": "green",
      "card-broadcasts": "green",
      "card-live": "green",
      "card-reports": "green",
      "card-cron": "green",
    });
    const text = document.getElementById("cards")!.textContent!;
    for (const figure of [
      "Pending fields", "Flush lag", "Dead letters", "Big accounts", "Sockets open", "Users online", "Started in the last 6 h", "stage", "flush (* * * * *)", "p99 340 ms",
      "#41 running", "1,500 sent, 0 failed, 12 dropped, 288 pending of 1,800", "pages 2/6", "604.8 devices/s", "FCM topic broadcasts sent",
    ]) {
      expect(text).toContain(figure);
    }
  });

  it("colours against the thresholds the page states: flush lag over 2 min red, a dead letter amber, a database down red", () => {
    const { document, console } = page();
    const bad = clone();
    bad.counters.flushLagMs = 121_000;
    bad.feed.deadLettersTotal = 1;
    bad.feed.deadLetters["feed-fanout"] = 1;
    bad.dependencies.postgres = { name: "postgres", ok: false, latencyMs: 2000, error: "no answer within 2000 ms" };
    console.renderCards(document, document.getElementById("cards")!, bad);
    expect(levels(document)).toMatchObject({ "card-dependencies": "red", "card-counters": "red", "card-feed": "amber" });
    expect(document.querySelector("#card-counters .reasons")!.textContent).toContain("flush lag over 2 min");
    const stated = document.querySelector(".thresholds")!.textContent!;
    expect(stated).toContain("flush lag (age of the oldest unapplied counter batch) over 2 minutes");
    expect(stated).toContain("any dead letter waiting");
    expect(stated).toContain("a database (Redis or Postgres) does not answer");
  });

  it("shows push broadcasts: amber with failed devices or a failing FCM topic send, 'none' without any", () => {
    const { document, console } = page();
    const failing = clone();
    failing.notify.broadcasts[0].devices.failed = 3;
    failing.notify.broadcasts[0].topic = { name: "broadcasts", sentAt: null, error: "429 QUOTA_EXCEEDED (retrying)" };
    console.renderCards(document, document.getElementById("cards")!, failing);
    expect(levels(document)["card-broadcasts"]).toBe("amber");
    const reasons = document.querySelector("#card-broadcasts .reasons")!.textContent!;
    expect(reasons).toContain("broadcast 41: 3 device(s) failed");
    expect(reasons).toContain("FCM topic 429 QUOTA_EXCEEDED (retrying)");
    const none = clone();
    none.notify.broadcasts = [];
    console.renderCards(document, document.getElementById("cards")!, none);
    expect(levels(document)["card-broadcasts"]).toBe("green");
    expect(document.querySelector("#card-broadcasts")!.textContent).toContain("none");
  });

  it("shows each Redis database's row in the Dependencies and Counters cards; one database down is red there, the others still shown", () => {
    const { document, console } = page();
    console.renderCards(document, document.getElementById("cards")!, clone());
    const rows = (card: string) => Object.fromEntries([...document.querySelectorAll(`#card-${card} dt`)].map((dt) => [dt.textContent, dt.nextElementSibling!.textContent]));
    expect(rows("dependencies")).toMatchObject({ "Redis db0": "up, 3 ms", "Redis db1": "up, 4 ms", "Redis db2": "up, 3 ms" });
    expect(rows("counters")).toMatchObject({ "Pending fields (all databases)": "12", "Redis db0": "5 pending, 0 batches, lag 0.0 s", "Redis db2": "3 pending, 0 batches, lag 0.0 s" });

    const down = clone();
    down.dependencies.redis[1] = { name: "db1", index: 1, ok: false, latencyMs: 2000, error: "no answer within 2000 ms" };
    down.counters.databases[1] = { index: 1, ok: false, pendingFields: null, unappliedBatches: null, oldestUnappliedBatch: null, flushLagMs: null };
    down.counters.pendingFields = 8;
    console.renderCards(document, document.getElementById("cards")!, down);
    expect(levels(document)).toMatchObject({ "card-dependencies": "red", "card-counters": "red", "card-feed": "green" });
    expect(rows("dependencies")).toMatchObject({ "Redis db0": "up, 3 ms", "Redis db1": "DOWN, 2000 ms — no answer within 2000 ms", "Redis db2": "up, 3 ms" });
    expect(rows("counters")).toMatchObject({ "Redis db1": "DOWN", "Redis db2": "3 pending, 0 batches, lag 0.0 s", "Pending fields (all databases)": "8" });
    expect(document.querySelector("#card-dependencies .reasons")!.textContent).toContain("db1 down");
    expect(document.querySelector("#card-counters .reasons")!.textContent).toContain("Redis db1 not answering");

    const lagging = clone();
    lagging.counters.databases[2] = { ...lagging.counters.databases[2], unappliedBatches: 1, oldestUnappliedBatch: { batch: "40", cutAt: "2026-11-25T14:57:00.000Z" }, flushLagMs: 180_000 };
    lagging.counters.oldestUnappliedBatch = { batch: "40", cutAt: "2026-11-25T14:57:00.000Z", database: 2 };
    lagging.counters.flushLagMs = 180_000;
    lagging.counters.unappliedBatches = 1;
    console.renderCards(document, document.getElementById("cards")!, lagging);
    expect(levels(document)).toMatchObject({ "card-dependencies": "green", "card-counters": "red" });
    expect(rows("counters")).toMatchObject({ "Flush lag (worst)": "180.0 s on db2", "Redis db2": "3 pending, 1 batches, lag 180.0 s" });
  });

  it("at one database, shows no per-database rows (its figures are the totals)", () => {
    const { document, console } = page();
    const one = clone();
    one.dependencies.redis = [{ name: "default", index: 0, ok: true, latencyMs: 3 }];
    one.counters.databases = [{ index: 0, ok: true, pendingFields: 12, unappliedBatches: 0, oldestUnappliedBatch: null, flushLagMs: 0 }];
    expect(StatusSchema.safeParse(one).error).toBeUndefined();
    console.renderCards(document, document.getElementById("cards")!, one);
    const counters = [...document.querySelectorAll("#card-counters dt")].map((dt) => dt.textContent);
    expect(counters).toContain("Pending fields");
    expect(counters.filter((t) => t!.startsWith("Redis"))).toEqual([]);
    expect(levels(document)["card-counters"]).toBe("green");
  });

  it("keeps 24 hours of each figure (every poll of the last 15 minutes, a point a minute before) and draws them as inline SVG lines", () => {
    const { document, console } = page();
    const history: Record<string, { t: number; v: number }[]> = {};
    const t0 = Date.parse(recorded.at);
    const old = clone();
    old.counters.flushLagMs = 5_000;
    console.record(history, old, t0 - 25 * 60 * 60_000); // falls out of the window
    // Polls every 5 s for the last 30 minutes: 15 minutes of them kept whole, 15 a minute apart.
    for (let t = t0 - 30 * 60_000; t <= t0; t += 5_000) console.record(history, clone(), t);
    expect(history.flushLag!.every((p) => p.t > t0 - 24 * 60 * 60_000)).toBe(true);
    expect(history.flushLag!.filter((p) => p.t < t0 - 15 * 60_000)).toHaveLength(15);
    expect(history.flushLag!.filter((p) => p.t >= t0 - 15 * 60_000)).toHaveLength(15 * 12 + 1);
    console.renderCards(document, document.getElementById("cards")!, clone(), history, t0);
    for (const series of ["flushLag", "pending", "fanoutP99", "sockets", "deadLetters"]) {
      const line = document.querySelector(`figure[data-series="${series}"] svg polyline`);
      expect(line, series).not.toBeNull();
      expect(line!.getAttribute("points")!.split(" ")).toHaveLength(history[series]!.length);
    }
  });

  it("draws the server's history on open, before the page's own points, and breaks the line where the cron was silent", () => {
    const { document, console } = page();
    const t0 = Date.parse(recorded.at);
    const minute = (i: number) => new Date(Math.floor(t0 / 60_000) * 60_000 - i * 60_000).toISOString();
    // 24 hours a minute apart, with an hour missing 3 hours ago (the cron did not run) and the fan-out p99 unknown once.
    const points = [];
    for (let i = 1_439; i >= 1; i--) {
      if (i > 180 && i <= 240) continue;
      points.push({ at: minute(i), flushLagMs: i === 600 ? 150_000 : 0, pendingFields: i, unappliedBatches: 0, fanoutP99Ms: i === 5 ? null : 300, deadLetters: i < 60 ? 2 : 0 });
    }
    const history = console.seed({}, { minutes: 1440, stepMs: 60_000, points });
    expect(history.pending).toHaveLength(points.length);
    expect(history.fanoutP99).toHaveLength(points.length - 1);
    expect(history.sockets ?? [], "not sampled by the server").toEqual([]);
    console.record(history, clone(), t0);
    expect(history.pending!.at(-1)).toEqual({ t: t0, v: recorded.counters.pendingFields });
    // Seeding again (a sign-out and back in) adds nothing the page already has.
    console.seed(history, { points });
    expect(history.pending).toHaveLength(points.length + 1);

    console.renderCards(document, document.getElementById("cards")!, clone(), history, t0);
    const svg = document.querySelector('figure[data-series="flushLag"] svg')!;
    expect(Number(svg.getAttribute("data-span-ms"))).toBeGreaterThan(23 * 60 * 60_000);
    const lines = svg.querySelectorAll("polyline");
    expect(lines, "one line before the silent hour, one after").toHaveLength(2);
    expect(lines[0]!.getAttribute("points")!.split(" ")).toHaveLength(1_439 - 240);
    // The lag of 150 s ten hours ago is the chart's peak: the top of the box, 10/24 of the way from the right.
    const peak = lines[0]!.getAttribute("points")!.split(" ").map((xy) => xy.split(",").map(Number)).find(([, y]) => y === 2)!;
    expect(peak[0]).toBeCloseTo(120 - (600 / 1440) * 120, 0);
    expect(document.querySelector('figure[data-series="flushLag"] figcaption')!.textContent).toContain("(24 h)");
    expect(document.querySelector('figure[data-series="sockets"] figcaption')!.textContent).not.toContain("24 h");
  });

  it("lists dead letters with replay and discard buttons", () => {
    const { document, console } = page();
    const tbody = document.getElementById("dead-body")!;
    console.renderDeadLetters(document, tbody, {
      items: [{ id: "7", queue: "feed-fanout", body: { kind: "fanout", op: "add", postId: "42", authorId: "9", after: null }, diedAt: "2026-11-25T14:00:00.000Z", lastError: "WRONGTYPE" }],
      nextCursor: null,
    });
    expect(tbody.querySelectorAll("tr")).toHaveLength(1);
    expect(tbody.textContent).toContain("fanout post 42");
    expect(tbody.querySelector('button[data-action="replay"][data-id="7"]')).not.toBeNull();
    expect(tbody.querySelector('button[data-action="discard"][data-id="7"]')).not.toBeNull();
    console.renderDeadLetters(document, tbody, { items: [], nextCursor: null });
    expect(tbody.textContent).toContain("No dead letters.");
  });

  it("shows the Reports card: open count and the oldest open report's age, amber past 12 h, red past 24 h (the app stores' deadline)", () => {
    const { document, console } = page();
    const now = Date.parse(recorded.at);
    const at = (hours: number) => {
      const s = clone();
      s.reports = { open: 3, oldestOpenAt: new Date(now - hours * 3_600_000).toISOString(), oldestOpenAgeMs: hours * 3_600_000 };
      return s;
    };
    const levelAt = (hours: number) => console.renderCards(document, document.getElementById("cards")!, at(hours), undefined, now).find((c) => c.id === "reports")!.level;
    expect(levelAt(1)).toBe("green");
    expect(levelAt(13)).toBe("amber");
    expect(levelAt(25)).toBe("red");
    const card = document.getElementById("card-reports")!;
    expect(card.textContent).toContain("Open");
    expect(card.textContent).toContain("3");
    expect(card.textContent).toContain("over 24 h");
  });

  it("lists open reports with their posts as reported and a button per action (approve only with a held post)", () => {
    const { document, console } = page();
    const tbody = document.getElementById("reports-body")!;
    const report = (id: string, state: string, ageSeconds: number, reporterId: string | null) => ({
      id, status: "open", reporterId, userId: "77", category: "spam", comment: "buy now", createdAt: recorded.at, updatedAt: recorded.at, ageSeconds, resolvedAt: null, resolution: null,
      posts: [{ postId: "500", text: "cheap pills", reportedAt: recorded.at, state }], actions: [],
    });
    console.renderReports(document, tbody, { items: [report("9", "live", 30 * 3600, "5"), report("10", "held", 60, null)], nextCursor: null });
    const rows = tbody.querySelectorAll("tr");
    expect(rows).toHaveLength(2);
    expect(rows[0]!.className).toBe("red");
    expect(tbody.textContent).toContain("cheap pills");
    expect(tbody.textContent).toContain("(automatic)");
    for (const action of ["dismiss", "remove-posts", "suspend"]) expect(tbody.querySelector(`button[data-report-action="${action}"][data-id="9"]`)).not.toBeNull();
    expect(tbody.querySelector('button[data-report-action="approve"][data-id="9"]')).toBeNull();
    expect(tbody.querySelector('button[data-report-action="approve"][data-id="10"]')).not.toBeNull();
    console.renderReports(document, tbody, { items: [], nextCursor: null });
    expect(tbody.textContent).toContain("No open reports.");
  });

  it("lists account deletions, running first, with what each capability removed and the part running", () => {
    const { document, console } = page();
    const tbody = document.getElementById("deletions-body")!;
    const now = Date.parse(recorded.at);
    const at = (ms: number) => new Date(now - ms).toISOString();
    console.renderDeletions(document, tbody, {
      items: [
        { deletionId: "12", userId: "77", status: "running", askedAt: at(180_000), finishedAt: null, progress: [{ capability: "social.posts", removed: 40, done: true }, { capability: "social.follows", removed: 7, done: false }, { capability: "feed", removed: 0, done: false }] },
        { deletionId: "11", userId: "78", status: "finished", askedAt: at(600_000), finishedAt: at(590_000), progress: [{ capability: "social.posts", removed: 2, done: true }, { capability: "feed", removed: 0, done: true }] },
      ],
    }, now);
    const rows = tbody.querySelectorAll("tr");
    expect(rows).toHaveLength(2);
    expect(rows[0]!.className).toBe("amber");
    expect(rows[0]!.textContent).toContain("running 3 min");
    expect(rows[0]!.textContent).toContain("1 / 3 parts");
    expect(rows[0]!.textContent).toContain("▶ social.follows 7");
    expect(rows[0]!.textContent).not.toContain("feed");
    expect(rows[1]!.textContent).toContain("finished in 10 s");
    console.renderDeletions(document, tbody, { items: [] });
    expect(tbody.textContent).toContain("No account deletions.");
  });

  it("asks for the token once, keeps it for the tab, polls the status with it, and draws the server's history on open", async () => {
    const calls: { url: string; auth: string | null }[] = [];
    const t0 = Date.parse(recorded.at);
    const past = Array.from({ length: 120 }, (_, i) => ({ at: new Date(t0 - (120 - i) * 60_000).toISOString(), flushLagMs: 0, pendingFields: i, unappliedBatches: 0, fanoutP99Ms: 250, deadLetters: 0 }));
    const fetch = async (url: string, init: RequestInit) => {
      calls.push({ url, auth: new Headers(init.headers).get("Authorization") });
      const body = url === "/v1/admin/status/history" ? { minutes: 1440, stepMs: 60_000, points: past } : url.startsWith("/v1/admin/status") ? clone() : { items: [], nextCursor: null };
      return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
    };
    const { window, document } = page({ start: true, fetch });
    expect((document.getElementById("login") as HTMLFormElement).hidden).toBe(false);
    (document.getElementById("token") as HTMLInputElement).value = "admin-jwt";
    document.getElementById("login")!.dispatchEvent(new window.Event("submit", { cancelable: true }));
    expect(window.sessionStorage.getItem("community-edge-admin-token")).toBe("admin-jwt");
    await eventually(() => document.querySelectorAll(".card").length, (cards) => cards !== 0, 500);
    expect(document.querySelectorAll(".card")).toHaveLength(8);
    expect(calls[0]).toEqual({ url: "/v1/admin/status", auth: "Bearer admin-jwt" });
    expect(calls).toContainEqual({ url: "/v1/admin/status/history", auth: "Bearer admin-jwt" });
    // The pending-fields line holds the two hours of history and the first poll's point.
    const drawn = () => document.querySelector('figure[data-series="pending"] polyline')?.getAttribute("points")?.split(" ").length ?? 0;
    await eventually(drawn, (points) => points >= 121, 500);
    expect(drawn()).toBe(121);
    window.close();
  });
});
