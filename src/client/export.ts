import { authorizedFetch, type ApiError, type TokenProvider } from "./http";

/**
 * The records of `GET /v1/me/export`, one JSON object a line (`application/x-ndjson`), in this
 * order: the account, its posts (with their counts), whom it follows, its followers count, its
 * likes and favourites, its devices (kind and registration time; never a key, token or endpoint),
 * its push preferences, its chosen authors, the blocks and mutes it made (mutes in force), the
 * reports it made (posts by id), its unread state. `error` ends an export the server
 * could not finish (retry after the hour).
 */
export type ExportRecord =
  | { type: "account"; userId: string; exportedAt: string }
  | { type: "post"; id: string; text: string; createdAt: string; deletedAt?: string; counts: Record<string, number> }
  | { type: "following"; userId: string; followedAt: string }
  | { type: "followers"; count: number }
  | { type: "like" | "favorite"; postId: string; at: string }
  | { type: "device"; deviceId: string; kind: "webpush" | "fcm" | "apns"; registeredAt: string }
  | { type: "preferences"; preferences: Record<string, unknown> }
  | { type: "chosen_author"; authorId: string; chosenAt: string }
  | { type: "block"; userId: string; blockedAt: string }
  | { type: "mute"; userId: string; notifications: boolean; expiresAt: string | null; mutedAt: string }
  | {
      type: "report";
      id: string;
      userId: string;
      category: "spam" | "harassment" | "hate" | "violence" | "sexual" | "illegal" | "other";
      comment: string;
      postIds: string[];
      status: "open" | "resolved";
      createdAt: string;
      resolvedAt: string | null;
      resolution: "dismiss" | "remove-posts" | "suspend" | "approve" | "account-deleted" | null;
    }
  | { type: "unread"; badges: Record<string, unknown> }
  | { type: "error"; message: string };

/** The export was refused: the API's error (`rate_limited` with `retryAfterSeconds` within the hour). */
export class ExportError extends Error {
  constructor(
    readonly status: number,
    readonly error: ApiError | undefined,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(error?.message ?? `export answered ${status}`);
    this.name = "ExportError";
  }
}

/**
 * The caller's export, record by record, as the server streams it: lines are parsed as they
 * arrive, so an account with 100,000 posts is never held in memory here either. Throws
 * ExportError when the export is refused (once an hour: 429 with the seconds to wait).
 *
 * @example
 * for await (const record of exportRecords({ baseUrl, token: () => session.jwt })) {
 *   if (record.type === "post") archive.add(record);
 * }
 */
export async function* exportRecords(options: { baseUrl: string; token: TokenProvider; fetch?: (request: Request) => Promise<Response> }): AsyncGenerator<ExportRecord> {
  const fetchImpl = authorizedFetch(options.fetch ?? ((request) => globalThis.fetch(request)), options.token);
  const response = await fetchImpl(new Request(new URL("/v1/me/export", options.baseUrl), { headers: { Accept: "application/x-ndjson" } }));
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => undefined)) as { error?: ApiError } | undefined;
    const retryAfter = Number(response.headers.get("Retry-After"));
    throw new ExportError(response.status, body?.error, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += value;
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line) yield JSON.parse(line) as ExportRecord;
      }
    }
    if (buffered.trim()) yield JSON.parse(buffered) as ExportRecord;
  } finally {
    reader.releaseLock();
  }
}
