/**
 * The Worker as production runs it, in local workerd through Miniflare's API: bundled as
 * `wrangler deploy` would ship it, with the bindings wrangler.toml declares. One module for every
 * place that serves the bundle (`npm run dev -- --serve`, the soak, the benchmarks), so a binding
 * added to wrangler.toml (a queue, a limiter) reaches all of them at once.
 *
 * wrangler.toml is read by wrangler's own `unstable_getMiniflareWorkerOptions` (what the vitest
 * pool uses) rather than by hand: the mapping of each section to Miniflare options is wrangler's.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, extname, join } from "node:path";
import type { Readable } from "node:stream";
import { Log, LogLevel, Miniflare, type WorkerOptions } from "miniflare";
import { REPO_ROOT } from "./migrate.js";

process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
process.env.WRANGLER_SEND_METRICS = "false";

/** The parts of wrangler.toml that shape the running Worker (everything but its code). */
export type WranglerWorkerOptions = Pick<
  WorkerOptions,
  "compatibilityDate" | "compatibilityFlags" | "bindings" | "durableObjects" | "ratelimits" | "queueProducers" | "queueConsumers" | "assets" | "modulesRules"
>;

/**
 * Compatibility date and flags, `[vars]`, Durable Objects, rate limiters, Queues (producers and
 * consumers, with their dead-letter queues), module rules (`[[rules]]`: the gzipped docs files are
 * Data modules of the bundle) and static assets (`[assets]`, served in front of the Worker as the
 * edge serves them; this Worker declares none, see wrangler.toml) as wrangler.toml declares them.
 * Sections that are absent come back empty, so a Worker without queues runs without them.
 */
export async function workerOptionsFromWrangler(configPath = join(REPO_ROOT, "wrangler.toml")): Promise<WranglerWorkerOptions> {
  // Imported on demand: wrangler's CLI bundle takes seconds to load.
  const { unstable_getMiniflareWorkerOptions } = await import("wrangler");
  const { workerOptions: o } = unstable_getMiniflareWorkerOptions(configPath);
  if (!o.compatibilityDate) throw new Error(`${configPath} has no compatibility_date`);
  return {
    compatibilityDate: o.compatibilityDate,
    compatibilityFlags: o.compatibilityFlags,
    bindings: o.bindings,
    durableObjects: o.durableObjects,
    ratelimits: o.ratelimits,
    queueProducers: o.queueProducers,
    queueConsumers: o.queueConsumers,
    assets: o.assets,
    modulesRules: o.modulesRules,
  };
}

/**
 * Bundles the Worker with wrangler (as deploy would) into a new temp dir; the caller removes it.
 * `entry` replaces wrangler.toml's `main` (the benchmarks' bench-only entry). Returns the bundle's
 * main module: wrangler names it after the entry (index.js for src/index.ts), and what the dry run
 * printed (the bindings a deploy would give the Worker, vars with their values).
 */
export function bundleWorker(entry?: string): { outdir: string; main: string; printed: string } {
  const outdir = mkdtempSync(join(tmpdir(), "ce-worker-"));
  const printed = execFileSync(join(REPO_ROOT, "node_modules/.bin/wrangler"), ["deploy", "--dry-run", "--outdir", outdir, ...(entry ? [entry] : [])], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  return { outdir, main: join(outdir, entry ? `${basename(entry, extname(entry))}.js` : "index.js"), printed };
}

export interface WorkerdOptions {
  /** A Worker entry other than wrangler.toml's `main` (the benchmarks' bench-only entry). */
  entry?: string;
  /** Secrets and local overrides, on top of wrangler.toml's `[vars]`. */
  vars: Record<string, string>;
  host?: string;
  /** Port of the Worker's socket (0: any free one). */
  port?: number;
  /**
   * `direct`: the Worker on its own socket, as the edge hands requests straight to the isolate
   * (benchmarks; no trigger routes). `entry`: behind Miniflare's entry worker, which adds
   * `/cdn-cgi/handler/scheduled?cron=` so other processes can fire crons (dev).
   */
  socket?: "direct" | "entry";
  /** Bind wrangler.toml's rate limiters (default true); benchmarks leave them out to measure handlers. */
  rateLimiters?: boolean;
  inspectorPort?: number;
  /**
   * The caller stops workerd itself on SIGINT/SIGTERM (after work of its own, e.g. a last flush):
   * drop the signal listeners that importing wrangler and starting Miniflare add, which would kill
   * workerd and exit the process at once (wrangler's with code 0). Their "exit" listeners stay, as a
   * last resort.
   */
  callerHandlesSignals?: boolean;
  /** The Worker's stdout/stderr (one JSON log line per request); drained when absent. */
  onOutput?: (chunk: Buffer, stream: "stdout" | "stderr") => void;
}

export interface RunningWorker {
  /** Base URL of the Worker (http://host:port, no trailing slash). */
  url: string;
  mf: Miniflare;
  /** Runs a cron trigger's handler now and waits for it (and its waitUntil work). */
  scheduled(cron: string): Promise<void>;
  /** Stops workerd and removes the bundle. */
  stop(): Promise<void>;
}

/** Bundles the Worker and starts it in workerd with wrangler.toml's bindings. */
export async function startWorkerd({ entry, vars, host = "127.0.0.1", port = 0, socket = "direct", rateLimiters = true, inspectorPort, callerHandlesSignals = false, onOutput }: WorkerdOptions): Promise<RunningWorker> {
  // Taken before wrangler is imported: importing it adds SIGINT/SIGTERM listeners that exit(0) too.
  const signals = ["SIGINT", "SIGTERM"] as const;
  const listenersBefore = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const fromToml = await workerOptionsFromWrangler();
  const { outdir, main } = bundleWorker(entry);
  const forward = (stream: "stdout" | "stderr") => (chunk: Buffer) => onOutput?.(chunk, stream);
  let mf: Miniflare | undefined;
  try {
    mf = new Miniflare({
      log: new Log(LogLevel.WARN),
      modules: true,
      scriptPath: main,
      modulesRoot: outdir,
      ...fromToml,
      ratelimits: rateLimiters ? fromToml.ratelimits : undefined,
      bindings: { ...fromToml.bindings, ...vars },
      host,
      ...(socket === "entry" ? { port, unsafeTriggerHandlers: true } : { port: 0, unsafeDirectSockets: [{ host, port }] }),
      ...(inspectorPort === undefined ? {} : { inspectorPort }),
      // Drained even when nobody listens: a full pipe would block workerd.
      handleRuntimeStdio(stdout: Readable, stderr: Readable) {
        stdout.on("data", forward("stdout"));
        stderr.on("data", forward("stderr"));
      },
    });
    const entryUrl = await mf.ready;
    const url = (socket === "entry" ? entryUrl : await mf.unsafeGetDirectURL()).toString().replace(/\/$/, "");
    if (callerHandlesSignals) {
      for (const signal of signals) {
        for (const listener of process.listeners(signal)) if (!listenersBefore.get(signal)!.has(listener)) process.removeListener(signal, listener);
      }
    }
    const running = mf;
    return {
      url,
      mf: running,
      async scheduled(cron) {
        const worker = await running.getWorker();
        await worker.scheduled({ cron, scheduledTime: new Date() });
      },
      async stop() {
        await running.dispose();
        rmSync(outdir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await mf?.dispose().catch(() => {});
    rmSync(outdir, { recursive: true, force: true });
    throw error;
  }
}
