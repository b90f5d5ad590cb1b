/**
 * `npm run check:browser [-- <check name>…]`: the API as a web page meets it, in a real browser.
 *
 * Starts a private local stack and the Worker as deployed (bundled, in workerd), launches Debian's
 * Chromium through puppeteer-core (no browser download), and runs every check module in
 * `scripts/browser-checks/*.ts` in file-name order (or only those named). Without Chromium it says
 * why and exits 0: this is a check to run where a browser exists, not a test. Exit 1 when a check
 * failed. Set CHROMIUM_PATH to use another Chromium or Chrome binary.
 *
 * The contract of a check module (keep it this small):
 *
 *   export const name = "cors";                       // shown in the output, usable as a filter
 *   export async function run(ctx: BrowserCheckContext): Promise<string | void> { … }
 *
 * `run` throws to fail (the message is printed) and may return one line of what it saw. The
 * context (`BrowserCheckContext`, below):
 *   - `baseUrl`  the Worker, e.g. http://127.0.0.1:PORT. CORS_ORIGINS allows `http://localhost:*`
 *                only, so pages served by `serve` (on localhost) are allowed and the same files
 *                reached through 127.0.0.1 are not;
 *   - `token(userId, { role?, alg? })`  a JWT the Worker accepts: HS256 with its JWT_SECRET, or
 *                RS256/ES256/EdDSA from a local identity provider whose JWKS the Worker fetches
 *                (JWT_JWKS_URL; JWT_ROLE_CLAIM maps a `role` claim);
 *   - `browser`  puppeteer-core's Browser: open pages with `browser.newPage()`, close them after;
 *   - `serve(files)`  serves `{ "/index.html": "…", "/app.js": "…" }` from a new local origin and
 *                returns its `http://localhost:PORT` URL (closed when the run ends);
 *   - `bundle(source)`  esbuild-bundles a page script (it may import `community-edge/client`);
 *   - `redis`    the Worker's Redis through its Upstash REST bridge (`{ restUrl, restToken }`), for
 *                checks that stage a state (a poisoned fan-out, say) before the page looks at it;
 *   - `push`     the stack's local push services: `vars`, the Worker's push settings pointing at
 *                them (VAPID_PUBLIC_KEY, …), and `controlUrl`, their control and recording API
 *                (web-push-testing subscriptions, what each service received decrypted:
 *                scripts/stack/push/index.ts);
 *   - `log(line)`.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { sign } from "hono/jwt";
import { DEV_ISSUER, devSigningKeys, publicJwks, signWithDevKey, type DevKeyAlg } from "./dev-keys.js";
import { startStack } from "./stack/index.js";
import { REPO_ROOT } from "./stack/migrate.js";
import { startWorkerd } from "./stack/workerd.js";
import { freePort } from "./stack/free-port.js";
import { DEV_JWKS_PATH } from "../src/lib/dev-jwks.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Flags that work here as root, in a container without a GPU or network. */
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const CHECK_TIMEOUT_MS = 90_000;
const CHECKS_DIR = join(REPO_ROOT, "scripts/browser-checks");

export interface BrowserCheckContext {
  baseUrl: string;
  token(userId: string, options?: { role?: "user" | "service" | "admin"; alg?: "HS256" | DevKeyAlg; ttlSeconds?: number }): Promise<string>;
  browser: import("puppeteer-core").Browser;
  serve(files: Record<string, string>): Promise<string>;
  bundle(source: string): Promise<string>;
  redis: { restUrl: string; restToken: string };
  push: { vars: Record<string, string>; controlUrl: string };
  log(line: string): void;
}

export interface BrowserCheck {
  name: string;
  run(ctx: BrowserCheckContext): Promise<string | void>;
}

const log = (line: string) => console.log(`[check:browser] ${line}`);

if (!existsSync(CHROMIUM)) {
  log(`skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  process.exit(0);
}

const only = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const files = readdirSync(CHECKS_DIR).filter((f) => f.endsWith(".ts")).sort();
const checks: BrowserCheck[] = [];
for (const file of files) {
  const mod = (await import(pathToFileURL(join(CHECKS_DIR, file)).href)) as Partial<BrowserCheck>;
  if (typeof mod.name !== "string" || typeof mod.run !== "function") throw new Error(`${file} must export name and run(ctx)`);
  if (only.length === 0 || only.includes(mod.name)) checks.push(mod as BrowserCheck);
}
if (checks.length === 0) {
  log(`no check named ${only.join(", ")} in scripts/browser-checks`);
  process.exit(2);
}

const scratch = mkdtempSync(join(tmpdir(), "ce-browser-"));
const servers: Server[] = [];
const stack = await startStack({ mode: "test" });
let worker: Awaited<ReturnType<typeof startWorkerd>> | undefined;
let browser: import("puppeteer-core").Browser | undefined;
let failed = 0;
try {
  const jwtSecret = randomBytes(32).toString("hex");
  const keys = await devSigningKeys(join(scratch, "keys"));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  worker = await startWorkerd({
    port,
    vars: {
      UPSTASH_REDIS_REST_URL: stack.restUrl,
      UPSTASH_REDIS_REST_TOKEN: stack.restToken,
      DATABASE_URL: stack.databaseUrl,
      NEON_WS_PROXY: stack.wsProxy,
      NEON_HTTP_PROXY: stack.httpProxy,
      JWT_SECRET: jwtSecret,
      CORS_ORIGINS: "http://localhost:*",
      ENVIRONMENT: "development",
      DEV_JWKS: JSON.stringify(publicJwks(keys)),
      JWT_JWKS_URL: `${baseUrl}${DEV_JWKS_PATH}`,
      JWT_ISSUER: DEV_ISSUER,
      JWT_ROLE_CLAIM: "role admin=admin,service=service",
      ...stack.push.vars,
    },
    rateLimiters: false,
  });
  const puppeteer = await import("puppeteer-core");
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, userDataDir: join(scratch, "profile") });
  const { build } = await import("esbuild");

  const ctx: BrowserCheckContext = {
    baseUrl: worker.url,
    browser,
    log,
    redis: { restUrl: stack.restUrl, restToken: stack.restToken },
    push: { vars: stack.push.vars, controlUrl: stack.push.controlUrl },
    async token(userId, { role = "user", alg = "HS256", ttlSeconds = 600 } = {}) {
      const now = Math.floor(Date.now() / 1000);
      if (alg === "HS256") return sign({ sub: userId, role, exp: now + ttlSeconds }, jwtSecret, "HS256");
      return signWithDevKey(keys, alg, { iss: DEV_ISSUER, sub: userId, role, iat: now, exp: now + ttlSeconds });
    },
    async serve(content) {
      const server = createServer((req, res) => {
        const path = new URL(req.url ?? "/", "http://page").pathname;
        const body = content[path === "/" ? "/index.html" : path];
        if (body === undefined) return void res.writeHead(404).end();
        const type = path.endsWith(".js") ? "text/javascript" : "text/html";
        res.writeHead(200, { "content-type": `${type}; charset=utf-8` }).end(body);
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return `http://localhost:${(server.address() as AddressInfo).port}`;
    },
    async bundle(source) {
      const out = await build({
        stdin: { contents: source, resolveDir: CHECKS_DIR, sourcefile: "page.ts", loader: "ts" },
        bundle: true,
        write: false,
        format: "esm",
        platform: "browser",
        target: "es2022",
        logLevel: "silent",
      });
      return out.outputFiles[0]!.text;
    },
  };

  for (const check of checks) {
    const started = Date.now();
    try {
      const seen = await Promise.race([
        check.run(ctx),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no result within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS).unref()),
      ]);
      log(`PASS ${check.name} (${Date.now() - started} ms)${seen ? `: ${seen}` : ""}`);
    } catch (error) {
      failed += 1;
      log(`FAIL ${check.name} (${Date.now() - started} ms): ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  log(`${checks.length - failed} passed, ${failed} failed (Chromium ${(await browser.version()).replace(/^HeadlessChrome\//, "")})`);
} finally {
  await browser?.close().catch(() => {});
  for (const server of servers) server.closeAllConnections(), server.close();
  await worker?.stop().catch(() => {});
  await stack.stop();
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed > 0 ? 1 : 0);
