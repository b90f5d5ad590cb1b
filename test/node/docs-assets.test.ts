import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DOCS_ASSETS_DIR, SWAGGER_UI_DIR, SWAGGER_UI_FILES } from "../../scripts/docs-assets";

describe("public/docs/assets (the /docs renderer's static files)", () => {
  it.each(SWAGGER_UI_FILES)("%s is the installed swagger-ui-dist's: refresh with `npm run docs:assets`", (file) => {
    const served = readFileSync(join(DOCS_ASSETS_DIR, file));
    expect(served.equals(readFileSync(join(SWAGGER_UI_DIR, file))), `public/docs/assets/${file} differs from node_modules/swagger-ui-dist/${file}`).toBe(true);
  });
});
