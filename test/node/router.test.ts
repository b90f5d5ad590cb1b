/**
 * The app's router (src/lib/app-router.ts): RegExpRouter for every route shape the app has, and
 * for every path a route names (with each parameter filled by a number and by every literal segment
 * that appears in any route, e.g. `/v1/posts/trending`, `/v1/live/online/ws`), each method, and
 * odd variants (trailing slash, doubled slash, unknown paths; Hono never asks for an empty path), the same handlers in the same order
 * with the same parameters as Hono's TrieRouter holding the same routes: no request reaches another
 * handler than before.
 */
import type { Result } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";
import { describe, expect, it } from "vitest";
import { newApp } from "../../src/app";
import { AppRouter } from "../../src/lib/app-router";

type RouterRoute = { method: string; path: string; handler: unknown };
const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"];

/** Each matched handler as [index of its route in `routes`, its parameters by name]. */
function normalized<T>(result: Result<T>, indexOf: (handler: T) => number): [number, Record<string, string | undefined>][] {
  const [matches, stash] = result as [[T, Record<string, string | number>][], string[] | undefined];
  return matches.map(([handler, params]) => [
    indexOf(handler),
    Object.fromEntries(Object.entries(params).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, stash ? stash[v as number] : (v as string)])),
  ]);
}

/** Every request path to try: each route path with its parameters filled in several ways, and variants. */
function samplePaths(routes: readonly RouterRoute[]): string[] {
  const literals = new Set<string>(["123", "9007199254740993", "x%20y"]);
  for (const { path } of routes) for (const segment of path.split("/")) if (segment && !segment.startsWith(":") && segment !== "*") literals.add(segment);
  const paths = new Set<string>(["/", "/v1", "/v1/", "/v1/no-such-route", "/nope/nope/nope"]);
  for (const { path } of routes) {
    const segments = path.replace(/\/\*$/, "/any/thing").split("/");
    const params = segments.map((s, i) => (s.startsWith(":") ? i : -1)).filter((i) => i >= 0);
    for (const literal of literals) {
      // every parameter the same literal, and each parameter alone given it (the others "123")
      const fills = [params.map(() => literal), ...params.map((p) => params.map((q) => (q === p ? literal : "123")))];
      for (const fill of fills) {
        const filled = segments.map((s, i) => (s.startsWith(":") ? fill[params.indexOf(i)]! : s)).join("/");
        paths.add(filled);
        paths.add(`${filled}/`);
        paths.add(filled.replace("/v1/", "/v1//"));
        paths.add(`${filled}/extra`);
      }
    }
  }
  return [...paths];
}

describe("the app's router", () => {
  it("is RegExpRouter with the static table, not the TrieRouter fallback, for every route the app has", () => {
    const app = newApp();
    const router = (app as unknown as { router: AppRouter<unknown> }).router;
    expect(router).toBeInstanceOf(AppRouter);
    router.match("POST", "/v1/counters/post/1");
    expect(router.name).toBe("AppRouter (RegExpRouter)");
  });

  it("answers every path, with every method, as Hono's TrieRouter holding the same routes does", () => {
    const app = newApp();
    const routes = app.routes as unknown as RouterRoute[];
    const router = (app as unknown as { router: AppRouter<[unknown, RouterRoute]> }).router;
    const trie = new TrieRouter<RouterRoute>();
    for (const route of routes) trie.add(route.method, route.path, route);
    const paths = samplePaths(routes);
    expect(paths.length).toBeGreaterThan(1_000);
    let compared = 0;
    const differences: string[] = [];
    for (const method of METHODS) {
      for (const path of paths) {
        const ours = normalized(router.match(method, path), ([, route]) => routes.indexOf(route));
        const reference = normalized(trie.match(method, path), (route) => routes.indexOf(route));
        if (JSON.stringify(ours) !== JSON.stringify(reference)) differences.push(`${method} ${path}`);
        compared++;
      }
    }
    expect(router.name).toBe("AppRouter (RegExpRouter)");
    expect(differences).toEqual([]);
    expect(compared).toBe(METHODS.length * paths.length);
  });

  it("keeps a static path's handlers beside the parameter routes that also match it, in order", () => {
    const router = new AppRouter<string>();
    router.add("ALL", "*", "every request");
    router.add("GET", "/posts/trending", "trending");
    router.add("GET", "/posts/:id", "post");
    router.add("GET", "/posts/:id/likes", "likes");
    const matched = (path: string) => (router.match("GET", path)[0] as [string, unknown][]).map(([h]) => h);
    expect(matched("/posts/trending")).toEqual(["every request", "trending", "post"]);
    expect(matched("/posts/7")).toEqual(["every request", "post"]);
    expect(matched("/posts/trending/likes")).toEqual(["every request", "likes"]);
    expect(router.name).toBe("AppRouter (RegExpRouter)");
  });
});
