import { describe, expect, it } from "vitest";
import { api, show } from "../support/api";

const METHODS = ["get", "put", "post", "delete", "patch"];

/** Every `src=` and `href=` of an HTML page. */
function references(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
}

describe("GET /docs", () => {
  it("answers a page that names every route of /openapi.json with its method", async () => {
    const doc = await api("GET", "/openapi.json");
    const page = await api("GET", "/docs");
    expect(page.status, show(page)).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    const missing: string[] = [];
    for (const [path, item] of Object.entries<Record<string, unknown>>(doc.body.paths)) {
      for (const method of METHODS.filter((m) => item[m])) {
        if (!page.body.includes(`<code class="m ${method}">${method.toUpperCase()}</code> <code>${path}</code>`)) missing.push(`${method} ${path}`);
      }
    }
    expect(Object.keys(doc.body.paths).length).toBeGreaterThan(40);
    expect(missing).toEqual([]);
  });

  it("loads only paths of this origin (the files are served in test/node/client.test.ts, by the Worker as deployed)", async () => {
    const page = await api("GET", "/docs");
    const refs = references(page.body);
    expect(refs).toEqual(expect.arrayContaining(["/docs/assets/swagger-ui-bundle.js", "/docs/assets/init.js", "/docs/assets/swagger-ui.css", "/openapi.json"]));
    for (const ref of refs) expect(ref, `${ref} is not a path on this origin`).toMatch(/^\/(?!\/)/);
  });

  it("lets the browser load, connect and submit to this origin only (Content-Security-Policy)", async () => {
    const page = await api("GET", "/docs");
    const csp = Object.fromEntries(
      (page.headers.get("content-security-policy") ?? "")
        .split(";")
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values]),
    );
    expect(csp["default-src"]).toEqual(["'none'"]);
    for (const directive of ["script-src", "connect-src", "img-src", "style-src", "font-src", "form-action"]) {
      expect(csp[directive], directive).toContain("'self'");
      expect((csp[directive] as string[]).filter((v) => /^(https?:|\*|\/\/)|\./.test(v)), `${directive} names another origin`).toEqual([]);
    }
    expect(csp["script-src"]).not.toContain("'unsafe-inline'");
    expect(page.body).not.toMatch(/<script>(?!<\/script>)/); // no inline script for the CSP to refuse
  });
});
