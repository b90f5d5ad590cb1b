/**
 * The workers project pre-bundles what the Worker imports from a few packages
 * (`PREBUNDLED_DEPENDENCIES`, vitest.config.ts). An import of one of those packages that the list
 * lacks would load a second copy of the package's modules beside the bundled one (two
 * `HTTPException` classes, two zod registries): every such import in `src/` and in the workers
 * tests must be in the list.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PREBUNDLED_DEPENDENCIES, PREBUNDLED_PACKAGES } from "../../vitest.config";

const ROOT = resolve(__dirname, "../..");

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node" && dir.endsWith("test") ? [] : tsFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Bare specifiers of the pre-bundled packages imported (statically or dynamically) by `file`. */
function prebundledImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*"([^"./][^"]*)"/g)].map((m) => m[1]!);
  return specifiers.filter((s) => PREBUNDLED_PACKAGES.some((p) => s === p || s.startsWith(`${p}/`)));
}

describe("pre-bundled dependencies of the workers project", () => {
  it("list every import of those packages in src/ and the workers tests", () => {
    const files = [...tsFiles(join(ROOT, "src")), ...tsFiles(join(ROOT, "test"))];
    expect(files.length).toBeGreaterThan(100);
    const listed = new Set<string>(PREBUNDLED_DEPENDENCIES);
    const missing = files.flatMap((file) => prebundledImports(file).filter((s) => !listed.has(s)).map((s) => `${relative(ROOT, file)}: ${s}`));
    expect(missing).toEqual([]);
    // and the list names nothing from elsewhere
    expect(PREBUNDLED_DEPENDENCIES.filter((d) => !PREBUNDLED_PACKAGES.some((p) => d === p || d.startsWith(`${p}/`)))).toEqual([]);
  });
});
