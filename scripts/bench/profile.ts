/**
 * CPU profiles of the Worker around one phase of a bench, over the V8 inspector that
 * BENCH_INSPECT_PORT opens (docs/development.md, "Profiling the Worker").
 *
 * `BENCH_INSPECT_PORT=9229 BENCH_PROFILE=broadcast npm run bench:push` profiles the phase the bench
 * names `broadcast` (several: comma-separated), writes `<phase>.cpuprofile` to BENCH_PROFILE_DIR
 * (default: the system's temp dir; DevTools' Performance panel opens it) and prints the functions
 * with the most self time. Without the two variables `profiled` only runs the phase.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { workerdPid } from "./harness.js";

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] };
type Profile = { nodes: ProfileNode[]; startTime: number; endTime: number; samples?: number[]; timeDeltas?: number[] };

const wanted = new Set((process.env.BENCH_PROFILE ?? "").split(",").filter(Boolean));

/**
 * Runs `phase`; profiles it when BENCH_PROFILE names it and BENCH_INSPECT_PORT is set. With
 * BENCH_PERF=1 instead, `perf record -g` samples the whole workerd process (runtime, kernel, V8 and
 * SQLite: what the JavaScript profile shows as `(program)` or an anonymous root) over the phase,
 * into `<phase>.perf.data` (`perf report -i …` reads it).
 */
export async function profiled<T>(name: string, phase: () => Promise<T>): Promise<T> {
  if (process.env.BENCH_PERF === "1" && wanted.has(name)) return perfRecorded(name, phase);
  const port = process.env.BENCH_INSPECT_PORT;
  if (!port || !wanted.has(name)) return phase();
  const session = await openSession(Number(port));
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: 200 });
  await session.send("Profiler.start");
  try {
    return await phase();
  } finally {
    const { profile } = (await session.send("Profiler.stop")) as { profile: Profile };
    session.close();
    const path = join(process.env.BENCH_PROFILE_DIR ?? tmpdir(), `${name}.cpuprofile`);
    writeFileSync(path, JSON.stringify(profile));
    console.error(`[profile] ${name}: ${path}\n${summary(profile, 25)}`);
  }
}

/** The `top` functions by self time (ms and share of the sampled time), then by inclusive time. */
export function summary(profile: Profile, top: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  const deltas = profile.timeDeltas ?? [];
  (profile.samples ?? []).forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i + 1] ?? 0)));
  const label = (n: ProfileNode) => `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const walk = (id: number, onStack: Set<string>): number => {
    const node = byId.get(id)!;
    const key = label(node);
    let total = selfUs.get(id) ?? 0;
    self.set(key, (self.get(key) ?? 0) + total);
    const inner = new Set(onStack).add(key);
    for (const child of node.children ?? []) total += walk(child, inner);
    if (!onStack.has(key)) inclusive.set(key, (inclusive.get(key) ?? 0) + total);
    return total;
  };
  const all = walk(profile.nodes[0]!.id, new Set());
  const lines = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `  ${(us / 1000).toFixed(1).padStart(8)} ms ${((100 * us) / all).toFixed(1).padStart(5)} %  ${k}`)
      .join("\n");
  return `sampled ${(all / 1000).toFixed(0)} ms\nself:\n${lines(self)}\ninclusive:\n${lines(inclusive)}`;
}

async function perfRecorded<T>(name: string, phase: () => Promise<T>): Promise<T> {
  const path = join(process.env.BENCH_PROFILE_DIR ?? tmpdir(), `${name}.perf.data`);
  const perf = spawn("perf", ["record", "-g", "-F", "2000", "-p", String(workerdPid()), "-o", path], { stdio: ["ignore", "ignore", "inherit"] });
  await new Promise((r) => setTimeout(r, 500)); // attached
  try {
    return await phase();
  } finally {
    perf.kill("SIGINT");
    await new Promise((r) => perf.once("exit", r));
    console.error(`[perf] ${name}: perf report -i ${path} --no-children --sort dso,sym`);
  }
}

async function openSession(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string; title?: string }[];
  const target = targets.find((t) => t.webSocketDebuggerUrl) ?? (() => { throw new Error(`no inspector target on port ${port}`); })();
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  let next = 0;
  const pending = new Map<number, (result: unknown) => void>();
  ws.on("message", (data) => {
    const message = JSON.parse(data.toString()) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  });
  return {
    send: (method: string, params?: unknown) =>
      new Promise<unknown>((resolve) => {
        const id = ++next;
        pending.set(id, resolve);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}
