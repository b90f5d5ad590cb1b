/**
 * The operator console's script, served by the Worker at `/admin/app.js` (never inline: the page's
 * CSP allows scripts from 'self' only). Plain browser JavaScript kept as a string so the Worker
 * serves it without a build step; `test/node/admin-page.test.ts` runs it against a DOM.
 *
 * Charts are inline SVG polylines drawn here (a few dozen lines) rather than a vendored library
 * such as uPlot (~50 KB): five small trend lines need no axes, zoom or legend, and there is
 * nothing to keep in step with an upstream release. On open they are drawn from the server's
 * history (`GET /v1/admin/status/history`: a point a minute for 24 hours, sampled by the flush
 * cron), then every poll appends its point.
 *
 * It exposes `window.AdminConsole` (the render functions, for tests) and starts polling unless
 * `window.ADMIN_CONSOLE_NO_START` is set.
 */
export const ADMIN_APP_JS = String.raw`(function () {
  "use strict";
  var TOKEN_KEY = "community-edge-admin-token";
  var POLL_MS = 5000;
  /** What a chart spans at most (the server's history) and at least (a page just opened without one). */
  var WINDOW_MS = 24 * 60 * 60 * 1000;
  var MIN_SPAN_MS = 15 * 60 * 1000;
  /** Points kept a minute apart at most, as the history's (the newest poll's point is always kept). */
  var STEP_MS = 60 * 1000;
  /** A longer silence between two points breaks the line (the cron or the page did not run). */
  var GAP_MS = 5 * 60 * 1000;
  var SVG = "http://www.w3.org/2000/svg";

  /** Thresholds, also listed on the page (keep the page's list in step: src/admin/page.ts). */
  var T = {
    flushLagRedMs: 2 * 60 * 1000,
    flushLagAmberMs: 60 * 1000,
    lastFlushRedMs: 3 * 60 * 1000,
    pendingAmber: 100000,
    latencyAmberMs: 250,
    fanoutP99AmberMs: 10 * 1000,
    fanoutP99RedMs: 60 * 1000,
    reportAmberMs: 12 * 60 * 60 * 1000,
    reportRedMs: 24 * 60 * 60 * 1000
  };
  /** What an operator may do with a report (POST /v1/admin/reports/{id}/actions). */
  var REPORT_ACTIONS = ["dismiss", "remove-posts", "suspend", "approve"];

  /**
   * The figures drawn as lines: \`read\` takes one from a status answer, \`past\` from a history point
   * (none for sockets: the server does not sample the hubs, so that line starts when the page opens).
   */
  var SERIES = {
    flushLag: { label: "flush lag (s)", read: function (s) { return s.counters.flushLagMs === null ? null : s.counters.flushLagMs / 1000; }, past: function (p) { return p.flushLagMs === null ? null : p.flushLagMs / 1000; } },
    pending: { label: "pending fields", read: function (s) { return s.counters.pendingFields; }, past: function (p) { return p.pendingFields; } },
    fanoutP99: { label: "fan-out p99 (ms)", read: function (s) { return s.feed.fanouts.p99Ms; }, past: function (p) { return p.fanoutP99Ms; } },
    sockets: { label: "sockets open", read: function (s) { return s.badgesPush.socketsOpen; } },
    deadLetters: { label: "dead letters", read: function (s) { return s.feed.deadLettersTotal; }, past: function (p) { return p.deadLetters; } }
  };

  function show(v, unit) {
    if (v === null || v === undefined) return "—";
    if (typeof v === "number") return v.toLocaleString("en-US") + (unit || "");
    return String(v);
  }
  function seconds(ms) { return ms === null || ms === undefined ? "—" : (ms / 1000).toFixed(1) + " s"; }
  function ago(iso, now) {
    if (!iso) return "never";
    var s = Math.round((now - Date.parse(iso)) / 1000);
    return s < 120 ? s + " s ago" : Math.round(s / 60) + " min ago";
  }
  function worst(levels) {
    if (levels.indexOf("red") >= 0) return "red";
    if (levels.indexOf("amber") >= 0) return "amber";
    return "green";
  }

  /** One card per area: its colour, the reasons for it, its figures and its charts. */
  function cardsFor(s, now) {
    now = now || Date.parse(s.at);
    var cards = [];

    var deps = s.dependencies.redis.map(function (r) { return r; }).concat([s.dependencies.postgres]);
    var depReasons = [];
    deps.forEach(function (d) {
      if (!d.ok) depReasons.push({ level: "red", text: d.name + " down" + (d.error ? ": " + d.error : "") });
      else if (d.latencyMs > T.latencyAmberMs) depReasons.push({ level: "amber", text: d.name + " slow" });
    });
    cards.push({
      id: "dependencies", title: "Dependencies", reasons: depReasons,
      rows: s.dependencies.redis.map(function (r) { return ["Redis " + r.name, (r.ok ? "up, " : "DOWN, ") + r.latencyMs + " ms" + (!r.ok && r.error ? " — " + r.error : "")]; })
        .concat([["Postgres", (s.dependencies.postgres.ok ? "up, " : "DOWN, ") + s.dependencies.postgres.latencyMs + " ms"]]),
      charts: []
    });

    var c = s.counters;
    var cr = [];
    if (c.flushLagMs !== null && c.flushLagMs > T.flushLagRedMs) cr.push({ level: "red", text: "flush lag over 2 min" });
    else if (c.flushLagMs !== null && c.flushLagMs > T.flushLagAmberMs) cr.push({ level: "amber", text: "flush lag over 1 min" });
    if (c.lastFlush && c.lastFlush.outcome === "error") cr.push({ level: "red", text: "last flush failed" });
    if (c.lastFlush && c.lastFlush.ageMs > T.lastFlushRedMs) cr.push({ level: "red", text: "no flush for 3 min" });
    if (!c.lastFlush) cr.push({ level: "amber", text: "no flush recorded yet" });
    if (c.pendingFields !== null && c.pendingFields > T.pendingAmber) cr.push({ level: "amber", text: "many pending fields" });
    // Several Redis databases: each has its own pending hash, batches and flush lag, shown on its own row.
    var dbs = c.databases || [];
    var names = {};
    s.dependencies.redis.forEach(function (r) { names[r.index] = r.name; });
    dbs.forEach(function (d) {
      var name = names[d.index] || "db" + d.index;
      if (!d.ok) cr.push({ level: "red", text: "Redis " + name + " not answering: its pending deltas and batches are unknown" });
    });
    var dbRows = dbs.length > 1 ? dbs.map(function (d) {
      var name = names[d.index] || "db" + d.index;
      return ["Redis " + name, d.ok ? show(d.pendingFields) + " pending, " + show(d.unappliedBatches) + " batches, lag " + seconds(d.flushLagMs) : "DOWN"];
    }) : [];
    cards.push({
      id: "counters", title: "Counters", reasons: cr,
      rows: [
        ["Pending fields" + (dbs.length > 1 ? " (all databases)" : ""), show(c.pendingFields)],
        ["Unapplied batches", show(c.unappliedBatches)],
        ["Flush lag" + (dbs.length > 1 ? " (worst)" : ""), seconds(c.flushLagMs) + (dbs.length > 1 && c.oldestUnappliedBatch ? " on " + (names[c.oldestUnappliedBatch.database] || "db" + c.oldestUnappliedBatch.database) : "")],
        ["Last flush", c.lastFlush ? ago(c.lastFlush.at, now) + ", " + c.lastFlush.outcome + ", " + show(c.lastFlush.durationMs, " ms") + ", " + show(c.lastFlush.deltas) + " deltas, " + show(c.lastFlush.statements) + " statements" : "never"],
        ["Reconcile", c.reconcile.running ? "running at " + c.reconcile.position.entity + " > " + c.reconcile.position.after + ", " + show(c.reconcile.correctedSoFar) + " corrected" : "idle"],
        ["Last pass", c.reconcile.lastPass ? show(c.reconcile.lastPass.corrected) + " corrected, " + ago(c.reconcile.lastPass.finishedAt, now) : "—"]
      ].concat(dbRows),
      charts: ["flushLag", "pending"]
    });

    var f = s.feed;
    var fr = [];
    if (f.deadLettersTotal) fr.push({ level: "amber", text: f.deadLettersTotal + " dead letter(s) waiting" });
    if (f.fanouts.p99Ms !== null && f.fanouts.p99Ms > T.fanoutP99RedMs) fr.push({ level: "red", text: "fan-out p99 over 60 s" });
    else if (f.fanouts.p99Ms !== null && f.fanouts.p99Ms > T.fanoutP99AmberMs) fr.push({ level: "amber", text: "fan-out p99 over 10 s" });
    cards.push({
      id: "feed", title: "Feed", reasons: fr,
      rows: [
        ["Dead letters", f.deadLetters ? Object.keys(f.deadLetters).map(function (q) { return q + " " + f.deadLetters[q]; }).join(", ") : "—"],
        ["Big accounts", f.bigAccounts ? f.bigAccounts.big + " (+" + (f.bigAccounts.toBig + f.bigAccounts.toNormal) + " moving)" : "—"],
        ["Fan-outs (last " + f.fanouts.samples + ")", "p50 " + show(f.fanouts.p50Ms, " ms") + ", p99 " + show(f.fanouts.p99Ms, " ms") + ", max " + show(f.fanouts.maxMs, " ms")]
      ],
      charts: ["fanoutP99", "deadLetters"]
    });

    var b = s.badgesPush;
    var br = [];
    if (b.hubs > 0 && b.hubsAnswered === 0) br.push({ level: "red", text: "no hub answered" });
    else if (b.hubsFailed > 0) br.push({ level: "amber", text: b.hubsFailed + " hub(s) did not answer" });
    cards.push({
      id: "badges", title: "Badges push", reasons: br,
      rows: [["Hubs", b.hubsAnswered + " of " + b.hubs + " answered"], ["Sockets open", show(b.socketsOpen)], ["Users online", show(b.usersOnline)]],
      charts: ["sockets"]
    });

    var nb = (s.notify && s.notify.broadcasts) || [];
    var nr = [];
    nb.forEach(function (x) {
      if (x.topic && x.topic.error) nr.push({ level: "amber", text: "broadcast " + x.id + ": FCM topic " + x.topic.error });
      if (x.devices.failed > 0) nr.push({ level: "amber", text: "broadcast " + x.id + ": " + x.devices.failed + " device(s) failed" });
    });
    cards.push({
      id: "broadcasts", title: "Push broadcasts", reasons: nr,
      rows: nb.length ? nb.map(function (x) {
        var topic = x.topic ? "; FCM topic " + x.topic.name + " " + (x.topic.sentAt ? "sent" : x.topic.error ? "failing" : "waiting") : "";
        return ["#" + x.id + " " + x.state + ", started " + ago(x.startedAt, now),
          show(x.devices.sent) + " sent, " + show(x.devices.failed) + " failed, " + show(x.devices.dropped) + " dropped, " + show(x.devices.pending) + " pending of " + show(x.devices.queued) +
          "; pages " + show(x.pages.done) + "/" + show(x.pages.total) + "; " + show(x.devicesPerSecond, " devices/s") + topic];
      }) : [["Recent", "none"]],
      charts: []
    });

    var l = s.liveRooms;
    cards.push({
      id: "live", title: "Live rooms", reasons: [],
      rows: [["Started in the last 6 h", show(l.startedLast6h)], ["Live (asked " + l.asked + ")", show(l.live) + (l.asOf ? ", " + ago(l.asOf, now) : "")]]
        .concat(l.largest.map(function (r) { return [r.roomId, r.viewers + " viewers, " + r.onlineFans + " fans"]; })),
      charts: []
    });

    var rp = s.reports;
    if (rp) {
      var rr = [];
      if (rp.oldestOpenAgeMs !== null && rp.oldestOpenAgeMs > T.reportRedMs) rr.push({ level: "red", text: "a report waits over 24 h (the app stores' deadline)" });
      else if (rp.oldestOpenAgeMs !== null && rp.oldestOpenAgeMs > T.reportAmberMs) rr.push({ level: "amber", text: "a report waits over 12 h" });
      cards.push({
        id: "reports", title: "Reports", reasons: rr,
        rows: [["Open", show(rp.open)], ["Oldest open", rp.oldestOpenAt ? ago(rp.oldestOpenAt, now) : "none"]],
        charts: []
      });
    }

    var cronReasons = [];
    var cronRows = Object.keys(s.cron).map(function (job) {
      var run = s.cron[job].lastRun;
      if (run && run.outcome === "error") cronReasons.push({ level: "red", text: job + " failed" });
      if (job === "flush" && (!run || now - Date.parse(run.startedAt) > T.lastFlushRedMs)) cronReasons.push({ level: run ? "red" : "amber", text: "flush cron " + (run ? "late" : "never ran") });
      var failed = run && run.tasks ? run.tasks.filter(function (t) { return !t.ok; }).map(function (t) { return t.name; }) : [];
      return [job + " (" + s.cron[job].schedule + ")", run ? ago(run.startedAt, now) + ", " + run.outcome + ", " + run.durationMs + " ms" + (failed.length ? " — failed: " + failed.join(", ") : "") : "never"];
    });
    cards.push({ id: "cron", title: "Cron", reasons: cronReasons, rows: cronRows, charts: [] });

    cards.forEach(function (card) { card.level = worst(card.reasons.map(function (r) { return r.level; })); });
    return cards;
  }

  /**
   * Adds a status answer's point to each series and keeps the last 24 hours: every poll's point of
   * the last 15 minutes, a point a minute before that (as the server's history), so a page left
   * open holds at most about as many points as the history.
   */
  function record(history, s, now) {
    now = now || Date.parse(s.at);
    Object.keys(SERIES).forEach(function (name) {
      var points = history[name] || (history[name] = []);
      var v = SERIES[name].read(s);
      if (v !== null && v !== undefined) points.push({ t: now, v: v });
      var kept = [];
      points.forEach(function (p) {
        if (p.t <= now - WINDOW_MS) return;
        if (p.t < now - MIN_SPAN_MS && kept.length && p.t - kept[kept.length - 1].t < STEP_MS) return;
        kept.push(p);
      });
      history[name] = kept;
    });
    return history;
  }

  /**
   * Puts the server's history (\`GET /v1/admin/status/history\`, oldest first) before what the page
   * recorded since it opened: its points older than the page's first.
   */
  function seed(history, answer) {
    Object.keys(SERIES).forEach(function (name) {
      var past = SERIES[name].past;
      if (!past) return;
      var points = history[name] || (history[name] = []);
      var first = points.length ? points[0].t : Infinity;
      var earlier = [];
      (answer.points || []).forEach(function (p) {
        var t = Date.parse(p.at);
        var v = past(p);
        if (t < first && v !== null && v !== undefined) earlier.push({ t: t, v: v });
      });
      history[name] = earlier.concat(points);
    });
    return history;
  }

  function span(ms) { return ms >= 2 * 60 * 60 * 1000 ? Math.round(ms / 3600000) + " h" : Math.round(ms / 60000) + " min"; }

  /**
   * A small line chart: the points since the first (15 minutes at least, 24 hours at most) scaled
   * into a 120 × 32 box, one line per run of points with no silence over GAP_MS, max as text.
   */
  function sparkline(doc, points, now) {
    var w = 120, h = 32;
    var svg = doc.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    // Stretched to the card's width (24 hours need it); the strokes keep their width.
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("class", "spark");
    svg.setAttribute("role", "img");
    var base = doc.createElementNS(SVG, "line");
    base.setAttribute("x1", "0"); base.setAttribute("x2", String(w));
    base.setAttribute("y1", String(h - 1)); base.setAttribute("y2", String(h - 1));
    base.setAttribute("stroke", "#8886"); base.setAttribute("stroke-width", "1");
    base.setAttribute("vector-effect", "non-scaling-stroke");
    svg.appendChild(base);
    if (!points || points.length === 0) return svg;
    var end = now || points[points.length - 1].t;
    var width = Math.min(WINDOW_MS, Math.max(MIN_SPAN_MS, end - points[0].t));
    var max = Math.max.apply(null, points.map(function (p) { return p.v; }));
    var min = Math.min(0, Math.min.apply(null, points.map(function (p) { return p.v; })));
    var range = max - min || 1;
    var runs = [[]];
    points.forEach(function (p, i) {
      if (i > 0 && p.t - points[i - 1].t > GAP_MS) runs.push([]);
      runs[runs.length - 1].push(p);
    });
    runs.forEach(function (run) {
      var line = doc.createElementNS(SVG, "polyline");
      line.setAttribute("fill", "none");
      line.setAttribute("stroke", "currentColor");
      line.setAttribute("stroke-width", "1.5");
      line.setAttribute("vector-effect", "non-scaling-stroke");
      line.setAttribute("points", run.map(function (p) {
        var x = w - ((end - p.t) / width) * w;
        var y = h - 2 - ((p.v - min) / range) * (h - 4);
        return x.toFixed(1) + "," + y.toFixed(1);
      }).join(" "));
      svg.appendChild(line);
    });
    svg.setAttribute("data-span-ms", String(width));
    var title = doc.createElementNS(SVG, "title");
    title.textContent = "last " + span(width) + ", max " + max;
    svg.appendChild(title);
    return svg;
  }

  function el(doc, tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /** Replaces the cards in container with those of status s. */
  function renderCards(doc, container, s, history, now) {
    var cards = cardsFor(s, now);
    container.textContent = "";
    cards.forEach(function (card) {
      var section = el(doc, "section", "card " + card.level);
      section.id = "card-" + card.id;
      section.setAttribute("data-level", card.level);
      var head = el(doc, "h2", null, card.title);
      head.appendChild(el(doc, "span", "badge", card.level));
      section.appendChild(head);
      if (card.reasons.length) {
        var why = el(doc, "ul", "reasons");
        card.reasons.forEach(function (r) { why.appendChild(el(doc, "li", r.level, r.text)); });
        section.appendChild(why);
      }
      var dl = el(doc, "dl");
      card.rows.forEach(function (row) { dl.appendChild(el(doc, "dt", null, row[0])); dl.appendChild(el(doc, "dd", null, row[1])); });
      section.appendChild(dl);
      card.charts.forEach(function (name) {
        var fig = el(doc, "figure", "chart");
        fig.setAttribute("data-series", name);
        fig.appendChild(sparkline(doc, (history || {})[name], now));
        var points = (history || {})[name] || [];
        var drawn = points.length ? " (" + span(Math.min(WINDOW_MS, Math.max(MIN_SPAN_MS, (now || Date.parse(s.at)) - points[0].t))) + ")" : "";
        fig.appendChild(el(doc, "figcaption", null, SERIES[name].label + ": " + show(points.length ? points[points.length - 1].v : null) + drawn));
        section.appendChild(fig);
      });
      container.appendChild(section);
    });
    return cards;
  }

  /** Empties a table body; with no items, one row across its columns saying text. */
  function resetRows(doc, tbody, items, text, columns) {
    tbody.textContent = "";
    if (items.length) return;
    var empty = el(doc, "tr");
    var td = el(doc, "td", "empty", text);
    td.setAttribute("colspan", String(columns));
    empty.appendChild(td);
    tbody.appendChild(empty);
  }

  /** A text cut to 200 characters (the full text stays in the API's answer). */
  function clip(text) {
    return text.length > 200 ? text.slice(0, 200) + "…" : text;
  }

  /** A row's button: attribute names what the click handler does, data-id the row's item. */
  function rowButton(doc, className, label, attribute, action, id) {
    var b = el(doc, "button", className, label);
    b.setAttribute(attribute, action);
    b.setAttribute("data-id", id);
    return b;
  }

  /** The dead-letter table: one row per dead letter with Replay and Discard buttons. */
  function renderDeadLetters(doc, tbody, page) {
    resetRows(doc, tbody, page.items, "No dead letters.", 5);
    page.items.forEach(function (d) {
      var tr = el(doc, "tr");
      tr.setAttribute("data-id", d.id);
      var body = d.body && typeof d.body === "object" ? d.body : {};
      tr.appendChild(el(doc, "td", null, d.id));
      tr.appendChild(el(doc, "td", null, d.queue));
      tr.appendChild(el(doc, "td", null, d.diedAt.replace("T", " ").slice(0, 19)));
      var msg = el(doc, "td", "msg", (body.kind || "?") + (body.postId ? " post " + body.postId : "") + (body.followerId ? " " + body.followerId + "→" + body.followeeId : ""));
      if (d.lastError) {
        var error = el(doc, "div", "error", clip(d.lastError));
        error.setAttribute("title", d.lastError);
        msg.appendChild(error);
      }
      tr.appendChild(msg);
      var actions = el(doc, "td", "actions");
      actions.appendChild(rowButton(doc, "replay", "Replay", "data-action", "replay", d.id));
      actions.appendChild(rowButton(doc, "discard", "Discard", "data-action", "discard", d.id));
      tr.appendChild(actions);
      tbody.appendChild(tr);
    });
  }

  /** The open reports, oldest first, each with its posts' text as reported and a button per action. */
  function renderReports(doc, tbody, page, now) {
    now = now || Date.now();
    resetRows(doc, tbody, page.items, "No open reports.", 5);
    page.items.forEach(function (r) {
      var tr = el(doc, "tr");
      tr.setAttribute("data-id", r.id);
      var age = r.ageSeconds * 1000;
      tr.className = age > T.reportRedMs ? "red" : age > T.reportAmberMs ? "amber" : "";
      tr.appendChild(el(doc, "td", null, r.id));
      tr.appendChild(el(doc, "td", null, span(age) + (r.reporterId ? "" : r.reporterErased ? " (reporter deleted)" : " (automatic)")));
      tr.appendChild(el(doc, "td", null, "user " + r.userId + " — " + r.category));
      var what = el(doc, "td", "msg", r.comment || "");
      r.posts.forEach(function (p) {
        what.appendChild(el(doc, "div", null, "#" + p.postId + " [" + p.state + "] " + clip(p.text)));
      });
      tr.appendChild(what);
      var actions = el(doc, "td", "actions");
      REPORT_ACTIONS.forEach(function (action) {
        if (action === "approve" && !r.posts.some(function (p) { return p.state === "held"; })) return;
        actions.appendChild(rowButton(doc, action, action, "data-report-action", action, r.id));
      });
      tr.appendChild(actions);
      tbody.appendChild(tr);
    });
  }

  /**
   * Account deletions: running ones first, then the most recent finished, each with what every
   * capability removed so far (the current one marked) and its age or how long it took.
   */
  function renderDeletions(doc, tbody, page, now) {
    now = now || Date.now();
    resetRows(doc, tbody, page.items, "No account deletions.", 4);
    page.items.forEach(function (d) {
      var tr = el(doc, "tr");
      tr.setAttribute("data-id", d.deletionId);
      tr.className = d.status === "running" ? "amber" : "";
      tr.appendChild(el(doc, "td", null, d.deletionId + " (user " + d.userId + ")"));
      var asked = Date.parse(d.askedAt);
      tr.appendChild(el(doc, "td", null, d.status === "running" ? "running " + span(now - asked) : "finished in " + Math.max(0, Math.round((Date.parse(d.finishedAt) - asked) / 1000)) + " s"));
      var done = d.progress.filter(function (p) { return p.done; }).length;
      tr.appendChild(el(doc, "td", null, done + " / " + d.progress.length + " parts"));
      var current = d.progress.filter(function (p) { return !p.done; })[0];
      tr.appendChild(el(doc, "td", "msg", d.progress.filter(function (p) { return p.removed > 0 || p === current; }).map(function (p) {
        return (p === current ? "▶ " : "") + p.capability + " " + p.removed;
      }).join(", ")));
      tbody.appendChild(tr);
    });
  }

  function start(win) {
    var doc = win.document;
    var history = {};
    var last = null;
    var timer = null;
    var $ = function (id) { return doc.getElementById(id); };

    function token() { return win.sessionStorage.getItem(TOKEN_KEY); }
    function call(method, path, body) {
      var headers = { Authorization: "Bearer " + token() };
      if (body !== undefined) headers["Content-Type"] = "application/json";
      return win.fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) }).then(function (res) {
        return res.json().catch(function () { return null; }).then(function (json) {
          if (res.status === 401 || res.status === 403) { signOut(res.status === 401 ? "The token was refused (401): paste a fresh admin token." : "This token is not an admin's (403)."); throw new Error("auth"); }
          if (!res.ok) throw new Error((json && json.error && json.error.message) || ("HTTP " + res.status));
          return json;
        });
      });
    }
    function setState(text, level) { var s = $("state"); s.textContent = text; s.className = "state " + (level || ""); }
    function poll() {
      call("GET", "/v1/admin/status").then(function (s) {
        last = s;
        record(history, s);
        var cards = renderCards(doc, $("cards"), s, history);
        setState("updated " + new Date(s.at).toLocaleTimeString(), cards.map(function (c) { return c.level; }).indexOf("red") >= 0 ? "red" : "");
        return Promise.all([loadDeadLetters(), loadReports(), loadDeletions()]);
      }).catch(function (err) { if (err.message !== "auth") setState("status failed: " + err.message, "red"); });
    }
    /** The server's last 24 hours, drawn before the page's own points (a failure leaves the page's alone). */
    function loadHistory() {
      return call("GET", "/v1/admin/status/history").then(function (answer) {
        seed(history, answer);
        if (last) renderCards(doc, $("cards"), last, history);
      }).catch(function (err) { if (err.message !== "auth") setState("history failed: " + err.message, "red"); });
    }
    function loadDeadLetters() {
      return call("GET", "/v1/admin/dead-letters?limit=50").then(function (page) { renderDeadLetters(doc, $("dead-body"), page); });
    }
    function loadReports() {
      return call("GET", "/v1/admin/reports?status=open&limit=50").then(function (page) { renderReports(doc, $("reports-body"), page); });
    }
    function loadDeletions() {
      return call("GET", "/v1/admin/deletions?limit=20").then(function (page) { renderDeletions(doc, $("deletions-body"), page); });
    }
    function act(method, path, body) {
      var said = $("action");
      return call(method, path, body).then(function (r) {
        said.textContent = r.resolution ? "report " + r.id + ": " + r.resolution : method === "DELETE" ? "discarded " + r.id : "replayed " + r.replayed + (r.more ? " (more waiting)" : "");
        said.className = "state";
        poll();
      }).catch(function (err) { if (err.message !== "auth") { said.textContent = err.message; said.className = "state red"; } });
    }
    function open() {
      $("login").hidden = true;
      $("console").hidden = false;
      $("signout").hidden = false;
      poll();
      loadHistory();
      if (timer === null) timer = win.setInterval(poll, POLL_MS);
    }
    function signOut(message) {
      win.sessionStorage.removeItem(TOKEN_KEY);
      if (timer !== null) { win.clearInterval(timer); timer = null; }
      $("console").hidden = true;
      $("signout").hidden = true;
      $("login").hidden = false;
      $("login-error").textContent = message || "";
    }
    $("login").addEventListener("submit", function (e) {
      e.preventDefault();
      var value = $("token").value.trim();
      if (!value) return;
      win.sessionStorage.setItem(TOKEN_KEY, value);
      $("token").value = "";
      open();
    });
    $("signout").addEventListener("click", function () { signOut(""); });
    $("dead-body").addEventListener("click", function (e) {
      var b = e.target;
      if (!b || !b.getAttribute || !b.getAttribute("data-action")) return;
      var id = b.getAttribute("data-id");
      if (b.getAttribute("data-action") === "replay") act("POST", "/v1/admin/dead-letters/replay", { ids: [id] });
      else act("DELETE", "/v1/admin/dead-letters/" + id);
    });
    $("reports-body").addEventListener("click", function (e) {
      var b = e.target;
      if (!b || !b.getAttribute || !b.getAttribute("data-report-action")) return;
      var action = b.getAttribute("data-report-action");
      var note = win.prompt ? win.prompt(action + " report " + b.getAttribute("data-id") + ": note (recorded with the action)", "") : "";
      if (note === null) return;
      act("POST", "/v1/admin/reports/" + b.getAttribute("data-id") + "/actions", { action: action, note: note || "" });
    });
    Array.prototype.forEach.call(doc.querySelectorAll("[data-replay-queue]"), function (b) {
      b.addEventListener("click", function () { act("POST", "/v1/admin/dead-letters/replay", { queue: b.getAttribute("data-replay-queue") }); });
    });
    if (token()) open(); else signOut("");
  }

  window.AdminConsole = { cardsFor: cardsFor, record: record, seed: seed, renderCards: renderCards, renderDeadLetters: renderDeadLetters, renderReports: renderReports, renderDeletions: renderDeletions, sparkline: sparkline, thresholds: T };
  if (!window.ADMIN_CONSOLE_NO_START) start(window);
})();
`;
