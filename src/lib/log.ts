/**
 * The Worker's log: one JSON line per event, `{"level": …, …fields}`, written with the console
 * method of its level (Workers Logs and `wrangler tail` file lines by that method).
 *
 * `LOG_LEVEL` (wrangler.toml) sets the lowest level written: `debug`, `info` (the default: one line
 * per request, per queue delivery and per cron task), `warn`, `error`, or `off`. A busy deployment
 * may keep only `warn` and above, as Workers Logs bill per line. Each entry point (`fetch`,
 * `queue`, `scheduled`, each Durable Object) applies its env's setting before it does anything,
 * so the setting is per isolate, as env is.
 */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const DEFAULT_LEVEL: LogLevel = "info";
const OFF = LOG_LEVELS.length;

/** The rank below which lines are dropped: an index into LOG_LEVELS, or OFF. */
let threshold: number = LOG_LEVELS.indexOf(DEFAULT_LEVEL);
/** The setting `threshold` comes from (every request applies its env's: the same one, but for tests). */
let applied: string | undefined;

/**
 * Applies a `LOG_LEVEL` setting: unset or empty is the default (`info`); a value that is not a
 * level is written once as an error and leaves the default in place.
 */
export function applyLogLevel(setting: string | undefined): void {
  if (setting === applied) return;
  applied = setting;
  const value = (setting ?? "").trim().toLowerCase();
  const rank = value === "" ? LOG_LEVELS.indexOf(DEFAULT_LEVEL) : value === "off" ? OFF : LOG_LEVELS.indexOf(value as LogLevel);
  threshold = rank === -1 ? LOG_LEVELS.indexOf(DEFAULT_LEVEL) : rank;
  if (rank === -1) log.error({ message: `LOG_LEVEL is not one of ${LOG_LEVELS.join(", ")}, off: ${DEFAULT_LEVEL} is used`, setting });
}

/** Whether a line of this level is written now. */
export function logs(level: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= threshold;
}

const WRITERS: Record<LogLevel, (line: string) => void> = {
  debug: (line) => console.debug(line),
  info: (line) => console.log(line),
  warn: (line) => console.warn(line),
  error: (line) => console.error(line),
};

function write(level: LogLevel, fields: Record<string, unknown>): void {
  if (logs(level)) WRITERS[level](JSON.stringify({ level, ...fields }));
}

export const log = {
  debug: (fields: Record<string, unknown>) => write("debug", fields),
  info: (fields: Record<string, unknown>) => write("info", fields),
  warn: (fields: Record<string, unknown>) => write("warn", fields),
  error: (fields: Record<string, unknown>) => write("error", fields),
};

/** An error as one line of text for a log field: its message, or the thrown value as a string. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
