import { readFileSync } from "node:fs";
import { compileErrors, validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { CLIENT_TYPES_FILE, clientTypes } from "../../scripts/client-types";
import { newApp } from "../../src/app";

/** `GET /openapi.json` answered by the app itself (in Node: the document needs no binding). */
async function servedDocument(): Promise<any> {
  const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} };
  const res = await newApp().request("/openapi.json", {}, {} as never, ctx as never);
  expect(res.status).toBe(200);
  return res.json();
}

const METHODS = ["get", "put", "post", "delete", "patch"];

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document (@readme/openapi-parser)", async () => {
    const doc = await servedDocument();
    expect(doc.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(doc));
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
  });

  it("gives every operation a request example (body or parameters) and an example of every JSON response", async () => {
    const doc = await servedDocument();
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const body = op.requestBody?.content?.["application/json"];
        if (body && body.example === undefined) missing.push(`${method} ${path}: request body`);
        for (const p of op.parameters ?? []) {
          if (p.required && (p.schema?.example ?? p.schema?.enum?.[0] ?? p.example) === undefined) missing.push(`${method} ${path}: parameter ${p.name}`);
        }
        for (const [status, res] of Object.entries<any>(op.responses)) {
          const json = res.content?.["application/json"];
          if (json && json.example === undefined) missing.push(`${method} ${path}: ${status} response`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("names its authentication once, in the document's description", async () => {
    const doc = await servedDocument();
    expect(doc.info.description).toMatch(/## Authentication[\s\S]*Authorization: Bearer/);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });
});

describe("src/client/schema.d.ts (the typed client's types)", () => {
  it("matches the routes: regenerate with `npm run client:types`", async () => {
    expect(readFileSync(CLIENT_TYPES_FILE, "utf8"), "src/client/schema.d.ts is out of date: run `npm run client:types`").toBe(await clientTypes());
  });
});
