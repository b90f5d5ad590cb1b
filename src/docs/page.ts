/**
 * A self-contained API reference: it renders /openapi.json in the browser with no third-party
 * assets, so it works offline and under a strict CSP.
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Community edge API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:960px;padding:1rem 2rem;color:#222}
h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
details{border:1px solid #e3e3e3;border-radius:6px;margin:.4rem 0;padding:.3rem .7rem}
summary{cursor:pointer}.m{display:inline-block;width:4.5rem;font-weight:700;font-family:monospace}
.get{color:#1769aa}.post{color:#2e7d32}.put{color:#a05a00}.delete{color:#b00020}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f6f8fa;padding:.5rem;overflow:auto}
.lock{font-size:12px;color:#777;margin-left:.5rem}
</style></head><body>
<h1>Community edge API</h1>
<p>Machine-readable document: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).
Authenticated routes take <code>Authorization: Bearer &lt;JWT&gt;</code> (HS256, <code>sub</code> = user id, <code>role</code> = user | service | admin, <code>exp</code> required).</p>
<div id="ops">Loading…</div>
<script>
const esc = (s) => String(s).replace(/[&<>"]/g, (ch) => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[ch]));
fetch("/openapi.json").then((r) => r.json()).then((doc) => {
  const byTag = {};
  for (const [path, item] of Object.entries(doc.paths || {})) {
    for (const [method, op] of Object.entries(item)) {
      const tag = (op.tags && op.tags[0]) || "Other";
      (byTag[tag] ||= []).push({ path, method, op });
    }
  }
  let html = "";
  for (const [tag, ops] of Object.entries(byTag)) {
    html += "<h2>" + esc(tag) + "</h2>";
    for (const { path, method, op } of ops) {
      const params = (op.parameters || []).map((p) => "<li><code>" + esc(p.name) + "</code> (" + esc(p.in) + (p.required ? ", required" : "") + ")" + (p.description ? " — " + esc(p.description) : "") + "</li>").join("");
      const body = op.requestBody ? "<p>Body:</p><pre>" + esc(JSON.stringify(op.requestBody.content["application/json"].schema, null, 2)) + "</pre>" : "";
      const responses = Object.entries(op.responses || {}).map(([code, r]) => "<li><code>" + esc(code) + "</code> " + esc(r.description || "") + "</li>").join("");
      html += "<details><summary><span class='m " + method + "'>" + method.toUpperCase() + "</span><code>" + esc(path) + "</code> — " + esc(op.summary || "") + (op.security ? "<span class='lock'>🔒 bearer</span>" : "") + "</summary>" +
        (params ? "<p>Parameters:</p><ul>" + params + "</ul>" : "") + body + "<p>Responses:</p><ul>" + responses + "</ul></details>";
    }
  }
  html += "<h2>Schemas</h2><pre>" + esc(JSON.stringify((doc.components || {}).schemas || {}, null, 2)) + "</pre>";
  document.getElementById("ops").innerHTML = html;
}).catch((err) => { document.getElementById("ops").textContent = "Could not load /openapi.json: " + err; });
</script></body></html>`;
