import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { DOCS_FILES_DIR, docsFileSources } from "../../scripts/docs-assets";

const sources = docsFileSources();

describe("src/docs/files/*.gz (the /docs renderer, bundled into the Worker)", () => {
  it.each(Object.keys(sources))("%s.gz unpacks to its source: refresh with `npm run docs:assets`", (file) => {
    const bundled = gunzipSync(readFileSync(join(DOCS_FILES_DIR, `${file}.gz`)));
    expect(bundled.equals(readFileSync(sources[file]!)), `src/docs/files/${file}.gz differs from ${sources[file]}`).toBe(true);
  });

  it("holds exactly the files `npm run docs:assets` writes, each named in src/docs/assets.ts", () => {
    const gz = readdirSync(DOCS_FILES_DIR).filter((f) => f.endsWith(".gz"));
    expect(gz.sort()).toEqual(Object.keys(sources).map((f) => `${f}.gz`).sort());
    const table = readFileSync(join(DOCS_FILES_DIR, "../assets.ts"), "utf8");
    for (const file of gz) expect(table, `src/docs/assets.ts does not import ${file}`).toContain(`import("./files/${file}")`);
  });
});
