/**
 * `npm run client:types`: regenerates `src/client/schema.d.ts`, the types of every path, query,
 * body and response of the API, from the OpenAPI document `/openapi.json` serves (built here from
 * the same routes, so no server needs to run). The typed client (`src/client/http.ts`) is
 * `openapi-fetch` over these types; test/node/openapi.test.ts fails while they are out of date
 * (test/node/client-types.test.ts checks that they refuse misuse).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { newApp, openApiDocument as documentOf } from "../src/app";

const REPO_ROOT = resolve(import.meta.dirname, "..");
export const CLIENT_TYPES_FILE = join(REPO_ROOT, "src/client/schema.d.ts");

const HEADER = `/**
 * Types of every route of the API, generated from its OpenAPI document by \`npm run client:types\`
 * (openapi-typescript). Do not edit: change the route's zod schemas, then regenerate.
 */

`;

/** The OpenAPI document, exactly as `GET /openapi.json` answers it. */
export function openApiDocument() {
  return documentOf(newApp());
}

/** The text `src/client/schema.d.ts` must hold for the current routes. */
export async function clientTypes(): Promise<string> {
  // defaultNonNullable off: a body field with a default may be left out by the caller.
  const ast = await openapiTS(JSON.stringify(openApiDocument()) as never, { defaultNonNullable: false });
  return HEADER + astToString(ast);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = await clientTypes();
  const before = (() => {
    try {
      return readFileSync(CLIENT_TYPES_FILE, "utf8");
    } catch {
      return "";
    }
  })();
  writeFileSync(CLIENT_TYPES_FILE, text);
  console.log(`${before === text ? "unchanged" : "wrote"} ${CLIENT_TYPES_FILE}`);
}
