import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { acceptsGzip, etagOf, staticFiles } from "../../src/lib/static-files";
import { api } from "../support/api";

const TEXT = "console.log('served by the Worker');\n".repeat(20);

async function gzip(text: string): Promise<ArrayBuffer> {
  return new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
}

async function appServing(text = TEXT) {
  const app = new Hono();
  const bytes = await gzip(text);
  app.route("/", staticFiles({ "/page/app.js": { load: async () => ({ default: bytes }), type: "text/javascript; charset=utf-8" } }));
  app.notFound((c) => c.json({ error: { code: "not_found" } }, 404));
  return app;
}

describe("staticFiles (files served by the Worker from its bundle)", () => {
  it("sends the gzipped bytes as they are to a client that takes gzip", async () => {
    const app = await appServing();
    const res = await app.request("/page/app.js", { headers: { "Accept-Encoding": "gzip, deflate, br" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Encoding")).toBe("gzip");
    expect(res.headers.get("Content-Type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("Vary")).toBe("Accept-Encoding");
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=600");
    const unpacked = await new Response(res.body!.pipeThrough(new DecompressionStream("gzip"))).text();
    expect(unpacked).toBe(TEXT);
  });

  it("unpacks the file for a client that does not take gzip", async () => {
    const app = await appServing();
    for (const acceptEncoding of ["identity", "br", "gzip;q=0, br", ""]) {
      const res = await app.request("/page/app.js", { headers: acceptEncoding ? { "Accept-Encoding": acceptEncoding } : {} });
      expect(res.headers.get("Content-Encoding"), acceptEncoding).toBeNull();
      expect(await res.text(), acceptEncoding).toBe(TEXT);
    }
  });

  it("answers 304 without a body to a client holding the same version, 200 to one holding another", async () => {
    const app = await appServing();
    const etag = (await app.request("/page/app.js")).headers.get("ETag")!;
    expect(etag).toMatch(/^"[0-9a-f]{8}-[0-9a-f]{8}"$/);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const res = await app.request("/page/app.js", { headers: { "If-None-Match": ifNoneMatch } });
      expect(res.status, ifNoneMatch).toBe(304);
      expect(await res.text()).toBe("");
    }
    const changed = await appServing(`${TEXT}// v2\n`);
    const res = await changed.request("/page/app.js", { headers: { "If-None-Match": etag } });
    expect(res.status).toBe(200);
    expect(res.headers.get("ETag")).not.toBe(etag);
  });

  it("serves only the exact paths listed: anything else is the mounting app's 404", async () => {
    const app = await appServing();
    for (const path of ["/page/app.js.gz", "/page/", "/page/other.js", "/page/app.js/x"]) {
      expect((await app.request(path)).status, path).toBe(404);
    }
  });

  it("etagOf reads the uncompressed CRC-32 and length from the gzip trailer", async () => {
    // CRC-32 of "hello\n" is 0x363a3020; 6 bytes.
    expect(etagOf(await gzip("hello\n"))).toBe('"363a3020-00000006"');
    expect(() => etagOf(new ArrayBuffer(4))).toThrow(/gzip/);
  });

  it("acceptsGzip follows the Accept-Encoding q-values", () => {
    expect(acceptsGzip("gzip")).toBe(true);
    expect(acceptsGzip("br, GZIP;q=0.5")).toBe(true);
    expect(acceptsGzip("*")).toBe(true);
    expect(acceptsGzip("gzip;q=0")).toBe(false);
    expect(acceptsGzip("identity")).toBe(false);
    expect(acceptsGzip(null)).toBe(false);
  });
});

describe("GET /docs/assets/* (the /docs renderer, served by the Worker itself)", () => {
  it("serves every file the page references, and nothing else under that path", async () => {
    const page = await api("GET", "/docs");
    const refs = [...String(page.body).matchAll(/\s(?:src|href)="(\/docs\/assets\/[^"]*)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(4);
    for (const ref of refs) {
      const res = await api("GET", ref);
      expect(res.status, ref).toBe(200);
      expect(res.headers.get("Content-Type"), ref).toMatch(ref.endsWith(".js") ? /^text\/javascript/ : /^text\/css/);
      expect(String(res.body).length, ref).toBeGreaterThan(100);
    }
    const missing = await api("GET", "/docs/assets/missing.js");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
  });
});
