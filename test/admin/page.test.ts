import { describe, expect, it } from "vitest";
import { ADMIN_CONTENT_SECURITY_POLICY } from "../../src/admin/page";
import { api } from "../support/api";

describe("GET /admin: the operator console", () => {
  it("is served by the Worker with the same-origin CSP, loading only its own script and styles", async () => {
    const res = await api("GET", "/admin");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toBe(ADMIN_CONTENT_SECURITY_POLICY);
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    const html = res.body as string;
    // No inline script or style (the CSP would block them), nothing from another origin.
    expect([...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => [m[1], m[2]])).toEqual([[' src="/admin/app.js"', ""]]);
    expect(html).not.toMatch(/<style|style=|\son[a-z]+=/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it("serves its script and styles from the Worker", async () => {
    const js = await api("GET", "/admin/app.js");
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("text/javascript");
    expect(js.body).toContain("window.AdminConsole");
    const css = await api("GET", "/admin/app.css");
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toContain("text/css");
    expect(css.body).toContain("@media (max-width: 600px)");
  });
});
