import { DEAD_LETTER_SOURCES } from "./dead-letters";

/**
 * `/admin`, the operator console: a static page served by this Worker (not the `[assets]`
 * directory), its script at `/admin/app.js` and its styles at `/admin/app.css`. It asks for an
 * admin token once (kept in `sessionStorage`, so for the tab only), polls `GET /v1/admin/status`
 * every 5 s, colours a card per area against the thresholds listed on the page, draws five figures
 * as inline SVG lines (the server's last 24 hours on open, then every poll), lists dead letters
 * with replay and discard, and the open reports (oldest first) with their actions.
 */

export const ADMIN_PAGE_PATH = "/admin";
export const ADMIN_SCRIPT_PATH = "/admin/app.js";
export const ADMIN_STYLE_PATH = "/admin/app.css";

/** Same origin only, as `/docs`; no inline script or style at all, so neither needs a hash. */
export const ADMIN_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Thresholds as the page states them (the script's `T` holds the same numbers). */
const THRESHOLDS = [
  ["red", "a database (Redis or Postgres) does not answer; each Redis database is listed and coloured on its own"],
  ["red", "flush lag (age of the oldest unapplied counter batch) over 2 minutes, on any Redis database"],
  ["red", "the last flush failed, or none ran for 3 minutes"],
  ["red", "a cron job's last run failed"],
  ["red", "fan-out p99 (publish → last follower's timeline) over 60 s"],
  ["red", "no badge hub answered"],
  ["red", "an open report older than 24 hours (the app stores' deadline for acting on one)"],
  ["amber", "any dead letter waiting"],
  ["amber", "flush lag over 1 minute, or over 100,000 pending counter fields"],
  ["amber", "fan-out p99 over 10 s"],
  ["amber", "a database answers slower than 250 ms"],
  ["amber", "a badge hub did not answer"],
  ["amber", "an open report older than 12 hours"],
] as const;

export function renderAdminPage(): string {
  const thresholds = THRESHOLDS.map(([level, text]) => `<li><span class="dot ${level}"></span>${level}: ${text}</li>`).join("");
  const replayAll = DEAD_LETTER_SOURCES.map((q) => `<button type="button" data-replay-queue="${q}">Replay all of ${q}</button>`).join(" ");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Operator console — Community edge</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ADMIN_STYLE_PATH}">
</head><body>
<header><h1>Operator console</h1><span id="state" class="state"></span><span id="action" class="state" aria-live="polite"></span><button type="button" id="signout" hidden>Forget token</button></header>
<form id="login" hidden>
  <label for="token">Admin token (a JWT with role <code>admin</code>; kept for this tab only)</label>
  <input id="token" name="token" type="password" autocomplete="off" spellcheck="false">
  <button type="submit">Open</button>
  <p id="login-error" class="error"></p>
</form>
<main id="console" hidden>
  <div id="cards" class="cards"></div>
  <section class="dead">
    <h2>Dead letters</h2>
    <p class="actions">${replayAll}</p>
    <div class="scroll"><table>
      <thead><tr><th>id</th><th>queue</th><th>died (UTC)</th><th>message, last error</th><th></th></tr></thead>
      <tbody id="dead-body"></tbody>
    </table></div>
  </section>
  <section class="reports">
    <h2>Open reports</h2>
    <div class="scroll"><table>
      <thead><tr><th>id</th><th>waiting</th><th>reported</th><th>comment, posts as reported</th><th></th></tr></thead>
      <tbody id="reports-body"></tbody>
    </table></div>
  </section>
  <section class="deletions">
    <h2>Account deletions</h2>
    <div class="scroll"><table>
      <thead><tr><th>deletion</th><th>status</th><th>parts done</th><th>removed so far, per capability</th></tr></thead>
      <tbody id="deletions-body"></tbody>
    </table></div>
  </section>
  <section class="thresholds">
    <h2>Thresholds</h2>
    <ul>${thresholds}</ul>
    <p>Figures refresh every 5 s. The lines show up to the last 24 hours: a point a minute recorded by the server (sockets open: since this page opened), then every refresh; a break in a line is a silence (the server recorded nothing then). What each figure means and what to do:
    <code>docs/operations.md</code>. API: <a href="/docs">/docs</a>.</p>
  </section>
</main>
<script src="${ADMIN_SCRIPT_PATH}"></script>
</body></html>`;
}

export const ADMIN_CSS = `
:root { color-scheme: light dark; --green: #1a7f37; --amber: #b7791f; --red: #c62828; --line: #8884; font: 15px/1.4 system-ui, sans-serif; }
[hidden] { display: none !important; }
body { margin: 0; padding: 0 1rem 2rem; }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: .5rem 1rem; padding: .75rem 0; border-bottom: 1px solid var(--line); }
h1 { font-size: 1.25rem; margin: 0; flex: 1 1 auto; }
h2 { font-size: 1rem; margin: 0 0 .5rem; display: flex; justify-content: space-between; align-items: center; }
.state { font-size: .85rem; opacity: .8; }
.state.red { color: var(--red); opacity: 1; }
form#login { display: grid; gap: .5rem; max-width: 32rem; margin: 2rem auto; }
input, button { font: inherit; padding: .45rem .6rem; border-radius: 6px; border: 1px solid var(--line); }
button { cursor: pointer; background: transparent; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(17rem, 1fr)); gap: .75rem; margin: 1rem 0; }
.card { border: 1px solid var(--line); border-left: 6px solid var(--green); border-radius: 8px; padding: .75rem; }
.card.amber { border-left-color: var(--amber); }
.card.red { border-left-color: var(--red); }
.badge { font-size: .75rem; text-transform: uppercase; padding: .1rem .45rem; border-radius: 999px; color: #fff; background: var(--green); }
.card.amber .badge { background: var(--amber); }
.card.red .badge { background: var(--red); }
.reasons { margin: 0 0 .5rem; padding-left: 1.1rem; font-size: .9rem; }
.reasons .red { color: var(--red); }
.reasons .amber { color: var(--amber); }
dl { display: grid; grid-template-columns: auto 1fr; gap: .15rem .75rem; margin: 0; font-size: .9rem; }
dt { opacity: .75; }
dd { margin: 0; text-align: right; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.chart { margin: .5rem 0 0; }
.chart figcaption { font-size: .8rem; opacity: .75; }
.spark { width: 100%; height: 2.5rem; display: block; color: #3b82f6; }
.dead .scroll, .reports .scroll { overflow-x: auto; }
.reports tr.amber td:first-child { border-left: 4px solid var(--amber); }
.reports tr.red td:first-child { border-left: 4px solid var(--red); }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td.actions { white-space: nowrap; }
td .error, p.error { color: var(--red); font-size: .8rem; overflow-wrap: anywhere; }
.thresholds ul { padding-left: 1.1rem; font-size: .9rem; }
.dot { display: inline-block; width: .7rem; height: .7rem; border-radius: 50%; margin-right: .4rem; background: var(--green); }
.dot.amber { background: var(--amber); }
.dot.red { background: var(--red); }
@media (max-width: 600px) {
  body { padding: 0 .5rem 1.5rem; }
  .cards { grid-template-columns: 1fr; }
  thead { display: none; }
  table, tbody, tr, td { display: block; width: 100%; box-sizing: border-box; }
  tr { border-bottom: 1px solid var(--line); padding: .35rem 0; }
  td { border: 0; padding: .15rem 0; }
}
`;
