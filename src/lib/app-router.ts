import { METHOD_NAME_ALL, UnsupportedPathError, type Result, type Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { TrieRouter } from "hono/router/trie-router";

/**
 * The app's router: Hono's RegExpRouter (one regular expression per method) for every route, with
 * the static paths answered from a table built once.
 *
 * Why not Hono's default (SmartRouter): RegExpRouter refuses a literal segment beside a parameter
 * at the same place (`GET /v1/posts/trending` beside `GET /v1/posts/:id`, `/v1/live/online` beside
 * `/v1/live/:roomId/ws`, `/v1/me/messages/read` beside `/v1/me/messages/:id/read`), so SmartRouter
 * fell back to TrieRouter for every request, which walks its tree per segment: about twice the
 * matching cost on the hot increment path.
 *
 * A static route (one method, no parameter, no wildcard) matches exactly one path, so what any
 * router answers for that method and path is fixed once the routes are in: it is computed here,
 * once, by a TrieRouter holding EVERY route (the same handlers in the same order, with the
 * parameters and wildcards that also match it — e.g. `:id = "trending"`), and kept in a table.
 * Every other request goes to a RegExpRouter holding every route but those statics; no request
 * other than a static's own method and path could reach a static, so it answers what it would
 * with them. Should RegExpRouter still refuse some route shape, the TrieRouter serves every
 * request (Hono's own fallback); `name` says which (test/platform/router.test.ts checks the app's).
 */
export class AppRouter<T> implements Router<T> {
  name = "AppRouter";
  #routes: [method: string, path: string, handler: T][] | undefined = [];

  add(method: string, path: string, handler: T): void {
    if (!this.#routes) throw new Error("AppRouter: a route was added after the first request was matched");
    this.#routes.push([method, path, handler]);
  }

  match(method: string, path: string): Result<T> {
    const routes = this.#routes!;
    this.#routes = undefined;
    const trie = new TrieRouter<T>();
    for (const [m, p, h] of routes) trie.add(m, p, h);

    const statics = new Map<string, Result<T>>();
    const regexp = new RegExpRouter<T>();
    try {
      for (const [m, p, h] of routes) {
        if (m !== METHOD_NAME_ALL && isStaticPath(p)) statics.set(staticKey(m, p), trie.match(m, p));
        else regexp.add(m, p, h);
      }
      regexp.match(method, path); // builds its matchers: a refused shape throws here
    } catch (error) {
      if (!(error instanceof UnsupportedPathError)) throw error;
      this.name = "AppRouter (TrieRouter)";
      this.match = (m, p) => trie.match(m, p);
      return trie.match(method, path);
    }
    this.name = "AppRouter (RegExpRouter)";
    this.match = (m, p) => statics.get(staticKey(m, p)) ?? regexp.match(m, p);
    return this.match(method, path);
  }
}

/** A path without parameters or wildcards, which a route matches only as it is (Hono's rule in RegExpRouter). */
function isStaticPath(path: string): boolean {
  return !/\*|\/:/.test(path);
}

function staticKey(method: string, path: string): string {
  return `${method} ${path}`;
}
