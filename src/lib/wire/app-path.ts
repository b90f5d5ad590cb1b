/**
 * Whether a push's `url` is a path of the app: what a notification opens must stay on the app's
 * own origin, whoever wrote it (a post's alert is its author's text on their choosers' screens).
 *
 * A leading "/" is not enough: browsers read a backslash as a slash and drop tabs and newlines
 * anywhere in a URL, so `/\evil.example` or `/\t/evil.example` resolve to another host. The url is
 * therefore parsed against a placeholder origin and must stay on it, and it may hold no backslash,
 * control character or whitespace, nor after percent-decoding a backslash or control character
 * (`/%5Cevil.example` and `/%09/x` are refused: an app's router may decode them before navigating;
 * an encoded space, `/search?q=a%20b`, is taken: no browser reads a space as a way out).
 */

/** The origin paths are resolved against; any origin of the app's own would do. */
const PLACEHOLDER_ORIGIN = "https://app.invalid";

/** Backslash, C0 and C1 control characters, DEL, and any Unicode whitespace: none in a url as sent. */
const UNSAFE = /[\\\s\x00-\x1f\x7f-\x9f]/;
/** Backslash, C0 and C1 control characters (tab and newline among them), DEL: none once decoded. */
const UNSAFE_DECODED = /[\\\x00-\x1f\x7f-\x9f]/;

function stays(path: string, unsafe: RegExp): boolean {
  if (!path.startsWith("/") || path.startsWith("//") || unsafe.test(path)) return false;
  try {
    return new URL(path, PLACEHOLDER_ORIGIN).origin === PLACEHOLDER_ORIGIN;
  } catch {
    return false;
  }
}

/** True for `/posts/9`; false for another site however spelled, and for a url that does not decode. */
export function isAppPath(url: string): boolean {
  if (!stays(url, UNSAFE)) return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(url);
  } catch {
    return false;
  }
  return stays(decoded, UNSAFE_DECODED);
}
