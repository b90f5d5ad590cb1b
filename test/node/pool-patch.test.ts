/**
 * `patches/` (applied by `npm install` through patch-package) fixes the Workers test pool's wrapper
 * classes (cloudflare/workers-sdk#15092 and #15446): unpatched, every construction of a wrapped
 * entrypoint or Durable Object class, that is every request to `SELF` and every new object, wrapped
 * the class's prototype in one more Proxy, so each later property read ran one more trap. A file's
 * requests got slower the more it had sent (20 ms a request at first, 60 ms after 300). This runs
 * the installed pool's own function in Node and counts how deep a read goes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** `createProxyPrototypeClass` as the installed pool has it, with the `IGNORED_KEYS` it closes over. */
function installedCreateProxyPrototypeClass(): (superClass: new (...args: unknown[]) => object, unknownKey: (key: string) => unknown) => new () => object {
  const installed = join(process.cwd(), "node_modules/@cloudflare/vitest-pool-workers/dist/worker/lib/cloudflare/test-internal.mjs");
  const source = readFileSync(installed, "utf8");
  const start = source.indexOf("function createProxyPrototypeClass(");
  const end = source.indexOf("\n}\n", start);
  expect(start, "the pool no longer has createProxyPrototypeClass: check whether patches/ still applies").toBeGreaterThan(-1);
  const ignored = /const IGNORED_KEYS = (\[[^\]]*\]);/.exec(source)?.[1] ?? "[]";
  return new Function(`const IGNORED_KEYS = ${ignored};\n${source.slice(start, end + 2)}\nreturn createProxyPrototypeClass;`)();
}

describe("the Workers test pool's wrapper classes (patched)", () => {
  it("install their prototype proxy once: a read after many constructions runs one trap, as after the first", () => {
    const createProxyPrototypeClass = installedCreateProxyPrototypeClass();
    class Entrypoint {
      known() {
        return "known";
      }
    }
    let unknownReads = 0;
    const Wrapped = createProxyPrototypeClass(Entrypoint, () => {
      unknownReads++;
      return undefined;
    });
    const first = new Wrapped() as Record<string, unknown>;
    void first.someRpcMethod;
    expect(unknownReads).toBe(1);

    for (let i = 0; i < 200; i++) new Wrapped();
    const later = new Wrapped() as Record<string, unknown>;
    unknownReads = 0;
    void later.someRpcMethod;
    expect(unknownReads).toBe(1); // unpatched: 202, one per construction so far
    expect((later.known as () => string)()).toBe("known");
    expect(later).toBeInstanceOf(Entrypoint);
  });
});
