import type { Redis } from "./redis";

/** What code that only runs scripts needs from a Redis client (every capability's hot path). */
export type ScriptRunner = Pick<Redis, "createScript">;

type Pending = { source: string; readonly: boolean; keys: string[]; args: unknown[]; resolve: (value: unknown) => void; reject: (err: unknown) => void };

/** SHA-1 of each script source, computed once per isolate (EVALSHA needs it before the first call). */
const digests = new Map<string, Promise<string>>();

function sha1(source: string): Promise<string> {
  let digest = digests.get(source);
  if (!digest) {
    digest = crypto.subtle.digest("SHA-1", new TextEncoder().encode(source)).then((buf) =>
      [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join(""),
    );
    digests.set(source, digest);
  }
  return digest;
}

/** A command error from inside a pipeline, worded as Redis worded it (so `isRedisCommandError` sees it). */
class ScriptCallError extends Error {
  override name = "UpstashError";
}

/**
 * A script runner that sends every `createScript(src).exec(keys, args)` made within one turn of
 * the event loop as ONE Upstash pipeline (one HTTP request, one round trip). Code written against
 * `ScriptRunner` — every capability's event handlers — runs unchanged; several handlers that each
 * start a script while reacting to the same event share the round trip.
 *
 * Calls are collected until the current macrotask ends (every handler has run up to its first
 * await on I/O), then sent with EVALSHA; scripts Redis does not know yet (NOSCRIPT) are re-sent with
 * EVAL in a second request, as `createScript().exec()` does. A failed request rejects every call of
 * it with the transport's error (an outage to `isRedisOutage`); a failed command rejects only its
 * own call (a command error to `isRedisCommandError`). Calls made after a flush started go out in
 * the next round.
 *
 * Read-only scripts (`createScript(source, { readonly: true })`, `#!lua flags=no-writes`): a round
 * made of them alone goes as EVALSHA_RO (EVAL_RO on NOSCRIPT), which a read region of a Global
 * database answers itself. A round with any other script goes whole as EVALSHA, read-only ones
 * included: a pipeline with a write is answered by the primary, and its reads must run there, in
 * order, after the writes before them.
 */
export function createScriptBatch(redis: () => Redis): ScriptRunner & { rounds(): number } {
  let queued: Pending[] = [];
  let rounds = 0;

  async function send(calls: Pending[]) {
    rounds++;
    try {
      const client = redis();
      const shas = await Promise.all(calls.map((c) => sha1(c.source)));
      const readOnly = calls.every((c) => c.readonly);
      const first = client.pipeline();
      calls.forEach((c, i) => (readOnly ? first.evalshaRo(shas[i]!, c.keys, c.args) : first.evalsha(shas[i]!, c.keys, c.args)));
      const answers = await first.exec({ keepErrors: true });
      const retry: number[] = [];
      answers.forEach((a, i) => {
        if (a.error && /NOSCRIPT/i.test(a.error)) retry.push(i);
        else settle(calls[i]!, a);
      });
      if (retry.length === 0) return;
      const second = client.pipeline();
      for (const i of retry) (readOnly ? second.evalRo(calls[i]!.source, calls[i]!.keys, calls[i]!.args) : second.eval(calls[i]!.source, calls[i]!.keys, calls[i]!.args));
      const again = await second.exec({ keepErrors: true });
      retry.forEach((i, j) => settle(calls[i]!, again[j]!));
    } catch (err) {
      for (const c of calls) c.reject(err);
    }
  }

  function settle(call: Pending, answer: { result?: unknown; error?: string }) {
    if (answer.error) call.reject(new ScriptCallError(answer.error));
    else call.resolve(answer.result);
  }

  function enqueue(call: Pending) {
    if (queued.length === 0) {
      // A macrotask, not a microtask: handlers that await something synchronous-looking (an
      // already-resolved promise, an async helper) before their script still make this round.
      setTimeout(() => {
        const calls = queued;
        queued = [];
        void send(calls);
      }, 0);
    }
    queued.push(call);
  }

  return {
    createScript<TResult = unknown>(source: string, opts?: { readonly?: boolean }) {
      const readonly = opts?.readonly === true;
      return {
        exec: (keys: string[], args: string[]) =>
          new Promise<TResult>((resolve, reject) => enqueue({ source, readonly, keys, args, resolve: resolve as (v: unknown) => void, reject })),
      } as ReturnType<Redis["createScript"]>;
    },
    rounds: () => rounds,
  } as ScriptRunner & { rounds(): number };
}
