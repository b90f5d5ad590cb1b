import createFetchClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema";
import { CONSISTENCY_TOKEN_HEADER, mergeSignedSyncTokens, readConsistencyToken, writeConsistencyToken, type SignedSyncTokens } from "../lib/consistency-token";

/**
 * Gives the client a caller's JWT. Called before each request with `refresh: false` (return a
 * cached token if it is still good) and, once, with `refresh: true` after the server refused the
 * token (401, or a socket closed with 4001): then it must return a new one. `null` sends no token.
 */
export type TokenProvider = (request: { refresh: boolean }) => string | null | undefined | Promise<string | null | undefined>;

/** The API's error envelope: every non-2xx answer carries `{ error: ApiError }`. */
export type ApiError = components["schemas"]["Error"]["error"];
export type ErrorCode = ApiError["code"];

export interface ClientOptions {
  /** Origin of the API, e.g. `https://edge.example.com` (no trailing path). */
  baseUrl: string;
  /** Where the caller's JWT comes from; omit for public routes only. */
  token?: TokenProvider;
  /** A `fetch` of your own (tests, instrumentation); the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * A client typed route by route from the API's OpenAPI document: paths, path and query parameters,
 * bodies and responses all checked at compile time. Every call resolves to `{ data, error,
 * response }`: `data` on 2xx, otherwise `error` is the API's error envelope (`error.error.code`,
 * `.message`, `.details`), never a thrown string. Only a network failure rejects.
 *
 * @example
 * const api = createClient({ baseUrl: "https://edge.example.com", token: () => session.jwt });
 * const { data, error } = await api.GET("/v1/counters/{entity}", { params: { path: { entity: "post" }, query: { ids: "42" } } });
 * if (error) console.warn(error.error.code, error.error.message);
 * else console.log(data.items[0]?.counts.likes);
 */
export function createClient({ baseUrl, token, fetch: fetchImpl = (request) => globalThis.fetch(request) }: ClientOptions): Client<paths> {
  return createFetchClient<paths>({ baseUrl, fetch: consistentFetch(token ? authorizedFetch(fetchImpl, token) : fetchImpl) });
}

/**
 * Read your own writes on a deployment with Redis read regions: keeps the newest
 * `X-Consistency-Token` seen (per database it names, in memory, for this client only) and sends it
 * on every request, so a read made after a write — a like, a follow, a post, a mark-read — waits
 * for that write wherever it is answered. On a single-region deployment no answer carries one and
 * nothing is sent. Each database's entry is kept as the server signed it (the client holds no
 * secret and checks nothing); a token the client cannot read is passed on as it came (the server
 * judges it). One the server refuses (a 400 naming the header: its secret changed) is dropped, so
 * the next request goes without it.
 */
export function consistentFetch(fetchImpl: (request: Request) => Promise<Response>) {
  let held: SignedSyncTokens = [];
  let header: string | undefined;
  return async function fetchConsistently(request: Request): Promise<Response> {
    // openapi-fetch builds each Request itself, so its headers may be set in place.
    const carried = header !== undefined && !request.headers.has(CONSISTENCY_TOKEN_HEADER) ? header : undefined;
    if (carried !== undefined) request.headers.set(CONSISTENCY_TOKEN_HEADER, carried);
    const response = await fetchImpl(request);
    const answered = response.headers.get(CONSISTENCY_TOKEN_HEADER);
    if (answered) {
      try {
        held = mergeSignedSyncTokens(held, readConsistencyToken(answered));
        header = writeConsistencyToken(held);
      } catch {
        // Not one we can read (a newer server?): keep it whole, it is the newest we saw.
        [held, header] = [[], answered];
      }
    } else if (carried !== undefined && header === carried && response.status === 400 && (await refusesToken(response))) {
      [held, header] = [[], undefined];
    }
    return response;
  };
}

/** Whether a 400 is the server refusing `X-Consistency-Token` (its error names the header). */
async function refusesToken(response: Response): Promise<boolean> {
  try {
    const body = (await response.clone().json()) as { error?: { details?: { field?: unknown }[] } };
    return Array.isArray(body.error?.details) && body.error.details.some((d) => d?.field === CONSISTENCY_TOKEN_HEADER);
  } catch {
    return false;
  }
}

/**
 * Adds `Authorization: Bearer` from the provider; on a 401 asks it for a fresh token and sends the
 * request once more (a second 401 is returned as it is, so a bad provider cannot loop).
 */
export function authorizedFetch(fetchImpl: (request: Request) => Promise<Response>, token: TokenProvider) {
  return async function fetchWithToken(request: Request): Promise<Response> {
    // Bodies are small JSON: read once into memory, so the retry can send it again (a stream can
    // be sent only once) and both sends carry a Content-Length.
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const send = (jwt: string | null | undefined) => {
      const headers = new Headers(request.headers);
      if (jwt) headers.set("Authorization", `Bearer ${jwt}`);
      return fetchImpl(new Request(request, { headers, body }));
    };
    const first = await send(await token({ refresh: false }));
    if (first.status !== 401) return first;
    const fresh = await token({ refresh: true });
    if (!fresh) return first;
    await first.arrayBuffer(); // read to the end (a few bytes), so the connection can be reused
    return send(fresh);
  };
}
