/**
 * Request and response examples for every operation of the OpenAPI document, built from the
 * route's own schemas: a field's `.openapi({ example })` first, then its default, first enum
 * value or constant, then a value of its type. Examples written on a media type by hand (the error
 * envelopes, see `errorResponses`) are kept. The /docs page shows them and "try it" starts from them.
 */

type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  example?: unknown;
  examples?: unknown[];
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  minimum?: number;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};
type Media = { schema?: Schema; example?: unknown };
type Operation = { requestBody?: { content?: Record<string, Media> }; responses?: Record<string, { content?: Record<string, Media> }> };
type Document = { paths?: object; components?: { schemas?: object } };

/** The keys of a path item that are operations (the rest: parameters, summary, …). */
export const OPERATION_METHODS = ["get", "post", "put", "patch", "delete"] as const;
const METHODS: ReadonlySet<string> = new Set(OPERATION_METHODS);
const EXAMPLE_TIME = "2026-01-01T12:00:00.000Z";

/** Adds `example` to every JSON request body and response of `doc` that has none; returns `doc`. */
export function withExamples<D extends Document>(doc: D): D {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, Schema>;
  for (const item of Object.values(doc.paths ?? {}) as object[]) {
    for (const [method, value] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const op = value as Operation;
      const media = [op.requestBody?.content, ...Object.values(op.responses ?? {}).map((r) => r.content)];
      for (const content of media) {
        const json = content?.["application/json"];
        if (json?.schema && json.example === undefined) json.example = exampleOf(json.schema, schemas, 0);
      }
    }
  }
  return doc;
}

/** An example value of `schema` (components resolved through `$ref`; recursion stops at depth 8). */
function exampleOf(schema: Schema, schemas: Record<string, Schema>, depth: number): unknown {
  if (depth > 8) return null;
  if (schema.$ref) {
    const target = schemas[schema.$ref.replace("#/components/schemas/", "")];
    return target ? exampleOf(target, schemas, depth + 1) : null;
  }
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants?.length) {
    const first = variants.find((v) => v.type !== "null") ?? variants[0]!;
    return exampleOf(first, schemas, depth + 1);
  }
  if (schema.allOf?.length) return Object.assign({}, ...schema.allOf.map((s) => exampleOf(s, schemas, depth + 1)));
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== "null") ?? "null") : schema.type;
  switch (type) {
    case "object": {
      const entries = Object.entries(schema.properties ?? {}).map(([name, s]) => [name, exampleOf(s, schemas, depth + 1)]);
      const extra = schema.additionalProperties;
      if (entries.length === 0 && extra && typeof extra === "object") entries.push(["key", exampleOf(extra, schemas, depth + 1)]);
      return Object.fromEntries(entries);
    }
    case "array":
      return schema.items ? [exampleOf(schema.items, schemas, depth + 1)] : [];
    case "string":
      return schema.format === "date-time" ? EXAMPLE_TIME : "string";
    case "integer":
    case "number":
      return Math.max(schema.minimum ?? 0, 1);
    case "boolean":
      return false;
    default:
      return null;
  }
}
