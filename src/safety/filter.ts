import { TermAutomaton } from "./automaton";
import type { ModerationCopy } from "./copy";

/**
 * The term filter: does a new post's text contain one of the operators' terms?
 *
 * Matching is on text folded the same way as the terms: NFKC (full-width letters, ligatures,
 * compatibility forms become their plain letters) then lower case. It is a substring match, so it
 * works on text without spaces (Chinese, Japanese) — and, for the same reason, a Latin term also
 * matches inside a longer word: operators list whole phrases where that matters.
 *
 * One Aho–Corasick automaton (`./automaton`: one pass over the text whatever the number of terms,
 * stopping at the first hit; a hit counts only on grapheme boundaries, so a term never matches
 * half an emoji or half a combining sequence) is built per isolate per terms version, on the first
 * post that needs it.
 */

/** NFKC, then lower case (NFKC again: lower-casing can leave a compatibility form behind). */
export function foldText(text: string): string {
  return text.normalize("NFKC").toLowerCase().normalize("NFKC");
}

type Built = { version: string; matcher: TermAutomaton<string> | null };
let built: Built | undefined;

/** The automaton of the copy's terms (null without terms), built once per terms version. */
function matcherOf(copy: Pick<ModerationCopy, "terms" | "termsVersion">): TermAutomaton<string> | null {
  if (built?.version !== copy.termsVersion) {
    const patterns = copy.terms.map((term) => ({ pattern: foldText(term), data: term })).filter((p) => p.pattern.length > 0);
    built = { version: copy.termsVersion, matcher: patterns.length > 0 ? new TermAutomaton(patterns) : null };
  }
  return built.matcher;
}

/** The first term (as the operator wrote it) that `text` contains, or null. */
export function matchedTerm(copy: Pick<ModerationCopy, "terms" | "termsVersion">, text: string): string | null {
  const matcher = matcherOf(copy);
  if (!matcher) return null;
  return matcher.first(foldText(text))?.data ?? null;
}
