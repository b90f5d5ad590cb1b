/**
 * The shape of `src/` as its imports draw it: no module reaches itself through its imports (type
 * imports included: a cycle of types still ties the modules' reasons to change together), no two
 * capabilities import each other and none imports another's tables (social's follows and posts
 * aside), the feed imports nothing of the badges, the live badge socket is entered through its
 * index only, the server imports nothing of the client, and the operations console sits above the
 * capabilities (it reads them; they record into `src/lib/ops`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(__dirname, "../../src");

/** Every `.ts` file under `dir`, as paths relative to `root`. */
function sources(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(root, path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [relative(root, path)] : [];
  });
}

/**
 * Relative imports and re-exports of each file, resolved to files under `root` (`x` → `x.ts` or
 * `x/index.ts`). With `runtime`, only what is loaded at run time (no `import type` / `export type`).
 */
export function importGraph(root: string, { runtime = false } = {}): Map<string, string[]> {
  const files = new Set(sources(root));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    const targets = new Set<string>();
    for (const match of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/gms)) {
      if (runtime && /^\s*(?:import|export)\s+type\b/.test(match[0])) continue;
      const base = join(dirname(file), match[1]!.replace(/\.js$/, ""));
      const target = [`${base}.ts`, join(base, "index.ts")].find((candidate) => files.has(candidate));
      if (target) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** The top folder of a file under `src/` (`badges` for `badges/live/hub.ts`); "" for a file at the top. */
const folderOf = (file: string) => (file.includes("/") ? file.split("/")[0]! : "");

/**
 * The capability folders: every folder of `src/` but the shared layers below them (`lib`, `db`),
 * the client apps import, the docs page, and the operations console, which sits above them.
 */
function capabilityFolders(root: string): string[] {
  const notCapabilities = new Set(["admin", "client", "db", "docs", "lib"]);
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !notCapabilities.has(entry.name))
    .map((entry) => entry.name)
    .sort();
}

/** Each pair of `folders` importing each other, with the imports that tie them (`a ⇄ b: a/x.ts → b/y.ts, …`). */
export function mutualImports(graph: Map<string, string[]>, folders: readonly string[]): string[] {
  const between = (from: string, to: string) =>
    [...graph].flatMap(([file, targets]) => (folderOf(file) === from ? targets.filter((t) => folderOf(t) === to).map((t) => `${file} → ${t}`) : []));
  return folders.flatMap((a, i) =>
    folders.slice(i + 1).flatMap((b) => {
      const [there, back] = [between(a, b), between(b, a)];
      return there.length > 0 && back.length > 0 ? [`${a} ⇄ ${b}: ${[...there, ...back].join(", ")}`] : [];
    }),
  );
}

/** Every cycle's modules (strongly connected components with more than one file, or a self-import). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    order.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, order.get(next)!));
    }
    if (low.get(node) === order.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!order.has(node)) visit(node);
  return found;
}

describe("src/ imports", () => {
  const graph = importGraph(SRC);

  it("finds a cycle when there is one (the check can fail)", () => {
    const tangled = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(cycles(tangled)).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(graph.get("app.ts")?.length, "the walk reads real imports").toBeGreaterThan(5);
  });

  it("have no cycle anywhere", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("run one way between any two capabilities, type imports included (notify calls down into badges; badges announce on the bus)", () => {
    const folders = capabilityFolders(SRC);
    expect(folders, "the walk sees the capabilities").toEqual(expect.arrayContaining(["badges", "counters", "feed", "live", "notify", "social"]));
    const tangled = new Map([
      ["a/x.ts", ["b/y.ts"]],
      ["b/y.ts", []],
      ["b/z.ts", ["a/w.ts"]],
      ["a/w.ts", []],
    ]);
    expect(mutualImports(tangled, ["a", "b"]), "the check can fail").toEqual(["a ⇄ b: a/x.ts → b/y.ts, b/z.ts → a/w.ts"]);
    expect(mutualImports(graph, folders)).toEqual([]);
  });

  it("keep each capability's tables its own: none imports another's schema.ts (social's follows and posts, the base every capability reads, aside) nor all of them (db/schema.ts)", () => {
    const folders = new Set([...capabilityFolders(SRC), "admin"]);
    const reaching = [...graph].flatMap(([file, targets]) =>
      folders.has(folderOf(file))
        ? targets
            .filter((t) => t === "db/schema.ts" || (t.endsWith("/schema.ts") && folders.has(folderOf(t)) && folderOf(t) !== folderOf(file) && t !== "social/schema.ts"))
            .map((t) => `${file} → ${t}`)
        : [],
    );
    expect(reaching).toEqual([]);
    // What others may read of social's: the walk sees them do it, so the exception is still needed.
    expect([...graph].some(([file, targets]) => folderOf(file) !== "social" && targets.includes("social/schema.ts"))).toBe(true);
  });

  it("keep the shared library below the capabilities and the server free of the client folder: what two sides read (an alert, a push's payload) lives in src/lib/wire", () => {
    const intoClient = [...graph].flatMap(([file, targets]) => (folderOf(file) === "client" ? [] : targets.filter((t) => folderOf(t) === "client").map((t) => `${file} → ${t}`)));
    expect(intoClient).toEqual([]);
    const folders = new Set([...capabilityFolders(SRC), "admin", "client"]);
    const fromLib = [...graph].flatMap(([file, targets]) => (folderOf(file) === "lib" ? targets.filter((t) => folders.has(folderOf(t))).map((t) => `${file} → ${t}`) : []));
    expect(fromLib).toEqual([]);
  });

  it("keep the feed free of the badges: the feed announces events, the badges subscribe", () => {
    const fromFeed = [...graph].flatMap(([file, targets]) => (file.startsWith("feed/") ? targets.filter((t) => t.startsWith("badges/")).map((t) => `${file} → ${t}`) : []));
    expect(fromFeed).toEqual([]);
  });

  it("enter the live badge socket through its index only (the Worker's entry exports the object class from its file)", () => {
    const inside = (file: string) => file.startsWith("badges/live/");
    const around = [...graph].flatMap(([file, targets]) =>
      inside(file) ? [] : targets.filter((t) => inside(t) && t !== "badges/live/index.ts").map((t) => `${file} → ${t}`),
    );
    expect(around).toEqual(["index.ts → badges/live/hub.ts"]);
    // Only the Worker's entry loads a module that imports the Workers runtime (`cloudflare:workers`):
    // the app (routes, OpenAPI document) must load in Node for the generators.
    const loaded = importGraph(SRC, { runtime: true });
    const runtimeOnly = new Set([...loaded.keys()].filter((file) => /from "cloudflare:workers"/.test(readFileSync(join(SRC, file), "utf8"))));
    const reached = new Set<string>();
    const reach = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const next of loaded.get(file) ?? []) reach(next);
    };
    reach("app.ts");
    expect([...runtimeOnly].filter((file) => reached.has(file))).toEqual([]);
    // The read model never imports the socket: only the wiring (routes, subscriber) does.
    const readModel = [...graph].filter(([file]) => file.startsWith("badges/") && !inside(file) && !["badges/routes.ts", "badges/subscriber.ts"].includes(file));
    expect(readModel.flatMap(([file, targets]) => targets.filter(inside).map((t) => `${file} → ${t}`))).toEqual([]);
  });

  it("keep the budget deferral in the shared library, below the capabilities it serves (the feed, notify and account deletions)", () => {
    const capabilities = ["accounts/", "admin/", "badges/", "counters/", "feed/", "live/", "notify/", "social/"];
    expect((graph.get("lib/deferral.ts") ?? []).filter((t) => capabilities.some((c) => t.startsWith(c)))).toEqual([]);
    // Outside the shared library itself (lib/queue-failures.ts settles a failed message beside it).
    const users = [...graph].filter(([file, targets]) => !file.startsWith("lib/") && targets.includes("lib/deferral.ts")).map(([file]) => file.split("/")[0]);
    expect(new Set(users)).toEqual(new Set(["accounts", "feed", "notify"]));
  });

  it("run one way around the operations console: the console reads the capabilities, the capabilities record into src/lib/ops", () => {
    // Only the app's wiring mounts the console (its page, routes and history task); no capability,
    // nor anything else, imports it.
    const intoAdmin = [...graph].flatMap(([file, targets]) => (file.startsWith("admin/") ? [] : targets.filter((t) => t.startsWith("admin/")).map((t) => `${file} → ${t}`)));
    expect(intoAdmin).toEqual(["app.ts → admin/app-script.ts", "app.ts → admin/history.ts", "app.ts → admin/page.ts", "app.ts → admin/routes.ts"]);
    // What jobs record (src/lib/ops) sits below every capability: it imports the shared library only.
    const fromOps = [...graph].flatMap(([file, targets]) => (file.startsWith("lib/ops/") ? targets.filter((t) => !t.startsWith("lib/")).map((t) => `${file} → ${t}`) : []));
    expect(fromOps).toEqual([]);
    expect([...graph.keys()].filter((file) => file.startsWith("lib/ops/")).length, "the walk sees src/lib/ops").toBeGreaterThan(2);
  });
});
