/**
 * What the FCM and APNs stand-ins share: one handler signature for HTTP/1.1 and HTTP/2 requests
 * (Node's compatibility API), bounded bodies, JSON answers, and JWT parsing for the checks.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { createPublicKey, verify, type KeyObject } from "node:crypto";

export type AnyRequest = IncomingMessage | Http2ServerRequest;
export type AnyResponse = ServerResponse | Http2ServerResponse;

/** An answer: status, JSON body (or none), headers. */
export type Answer = [status: number, body?: unknown, headers?: Record<string, string>];

/** Reads at most `limit` bytes; `undefined` when the body is longer (the caller answers 413). */
export async function readBody(req: AnyRequest, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function sendAnswer(res: AnyResponse, [status, body, headers = {}]: Answer): void {
  const out = res as ServerResponse;
  if (body === undefined) return void out.writeHead(status, headers).end();
  out.writeHead(status, { ...headers, "content-type": "application/json" }).end(JSON.stringify(body));
}

export type ParsedJwt = { header: Record<string, unknown>; claims: Record<string, unknown>; signingInput: string; signature: Buffer };

/** A compact JWS split and decoded (signature not checked); `undefined` when it is not one. */
export function parseJwt(token: string): ParsedJwt | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  try {
    const json = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Record<string, unknown>;
    return { header: json(parts[0]!), claims: json(parts[1]!), signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2]!, "base64url") };
  } catch {
    return undefined;
  }
}

/** Whether `jwt` is signed by `key` with `alg` (ES256: the JWS r‖s form, not DER). */
export function signedBy(jwt: ParsedJwt, key: KeyObject, alg: "ES256" | "RS256"): boolean {
  if (jwt.header.alg !== alg) return false;
  return verify("sha256", Buffer.from(jwt.signingInput), alg === "ES256" ? { key, dsaEncoding: "ieee-p1363" } : key, jwt.signature);
}

/** The public half of a PKCS#8 PEM private key (`\n`-escaped on one line works too). */
export function publicKeyOf(privateKeyPem: string): KeyObject {
  return createPublicKey(privateKeyPem.replace(/\\n/g, "\n"));
}

/** The request's path and the headers by lower-case name (HTTP/2 pseudo-headers left out). */
export function headersOf(req: AnyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith(":") || value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}
