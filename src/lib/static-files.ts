import { Hono } from "hono";

/**
 * A few static files served by the Worker itself, from its own bundle: the /docs page's renderer
 * (src/docs/assets.ts), and any other page of this Worker that needs a script or a stylesheet.
 *
 * Why not wrangler.toml `[assets]`: with an assets directory, every request — API calls included —
 * enters through the platform's asset router before the Worker; in local workerd (wrangler dev,
 * `--serve`, the benchmarks, the tests) that router is a second Worker on every request and cost
 * API requests 2–3× CPU (issue 20). Here a file is just a route of the app: no request pays
 * anything for a file it does not ask for.
 *
 * Each file is bundled once, gzip-compressed, as a Data module (wrangler.toml `[[rules]]` for
 * `*.gz`), so the Worker grows by the compressed size only and V8 never parses it; it is sent as
 * it is to clients that accept gzip (`encodeBody: "manual"`: the runtime must not compress it
 * again) and unpacked on the way out for the rare one that does not. Files are imported on first
 * request (`() => import("./x.js.gz")`): the app's module graph holds no `.gz` import, so Node
 * tools that build the app (`npm run client:types`, the OpenAPI tests) load it without a bundler.
 */
export interface StaticFile {
  /** Loads the file's bytes, gzip-compressed: `() => import("./files/x.js.gz")`. */
  load: () => Promise<{ default: ArrayBuffer }>;
  /** Its `Content-Type`. */
  type: string;
}

export interface StaticFilesOptions {
  /**
   * `Cache-Control` of every file. Default: browsers keep a file for 10 minutes, then ask again
   * with its ETag (a 304 costs no body), so a deploy reaches them within 10 minutes.
   */
  cacheControl?: string;
}

/**
 * A Hono app answering `GET` (and `HEAD`) for each path of `files` with that file, mounted with
 * `app.route("/", staticFiles({...}))`. Paths are exact: nothing else is looked up, and a path not
 * listed is the mounting app's 404.
 *
 * @example
 * app.route("/", staticFiles({ "/admin/console.js": { load: () => import("./files/console.js.gz"), type: "text/javascript; charset=utf-8" } }));
 */
export function staticFiles(files: Record<string, StaticFile>, { cacheControl = "public, max-age=600" }: StaticFilesOptions = {}) {
  const app = new Hono();
  for (const [path, file] of Object.entries(files)) {
    // Loaded once per isolate, on the first request for it.
    let loaded: Promise<{ gzip: ArrayBuffer; etag: string }> | undefined;
    app.get(path, async function staticFile(c) {
      loaded ??= file.load().then(({ default: gzip }) => ({ gzip, etag: etagOf(gzip) }));
      return serveStaticFile(c.req.raw, file.type, await loaded, cacheControl);
    });
  }
  return app;
}

/**
 * A strong ETag read from the gzip trailer, computed by nothing at request time: the CRC-32 and
 * length of the uncompressed bytes (RFC 1952 §2.3.1), which change whenever the file does.
 */
export function etagOf(gzip: ArrayBuffer): string {
  if (gzip.byteLength < 18) throw new Error("not a gzip member: shorter than its header and trailer");
  const trailer = new DataView(gzip, gzip.byteLength - 8);
  const hex = (n: number) => n.toString(16).padStart(8, "0");
  return `"${hex(trailer.getUint32(0, true))}-${hex(trailer.getUint32(4, true))}"`;
}

/** Whether the client takes `Content-Encoding: gzip` (an `Accept-Encoding` naming it, or `*`, with q > 0). */
export function acceptsGzip(acceptEncoding: string | null): boolean {
  for (const part of (acceptEncoding ?? "").toLowerCase().split(",")) {
    const [coding, ...params] = part.split(";").map((s) => s.trim());
    if (coding !== "gzip" && coding !== "x-gzip" && coding !== "*") continue;
    const q = params.find((p) => p.startsWith("q="));
    if (!q || Number(q.slice(2)) > 0) return true;
  }
  return false;
}

function serveStaticFile(request: Request, type: string, { gzip, etag }: { gzip: ArrayBuffer; etag: string }, cacheControl: string): Response {
  const headers = new Headers({ "Content-Type": type, "Cache-Control": cacheControl, ETag: etag, Vary: "Accept-Encoding" });
  const ifNoneMatch = request.headers.get("If-None-Match");
  if (ifNoneMatch && ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag || tag.trim() === "*")) {
    return new Response(null, { status: 304, headers });
  }
  if (acceptsGzip(request.headers.get("Accept-Encoding"))) {
    headers.set("Content-Encoding", "gzip");
    return new Response(gzip, { headers, encodeBody: "manual" });
  }
  const unpacked = new Blob([gzip]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(unpacked, { headers });
}
