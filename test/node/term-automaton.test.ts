import { describe, expect, it } from "vitest";
import { TermAutomaton } from "../../src/safety/automaton";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * The spec, the slow way: every occurrence of every pattern whose both ends are grapheme
 * boundaries, ordered by end, then longer first, then input order; the first one.
 */
function firstByScan(patterns: readonly string[], text: string) {
  const boundaries = new Set([text.length, ...[...segmenter.segment(text)].map((s) => s.index)]);
  const hits: { index: number; start: number; end: number }[] = [];
  patterns.forEach((p, index) => {
    if (!p) return;
    for (let start = text.indexOf(p); start >= 0; start = text.indexOf(p, start + 1)) {
      if (boundaries.has(start) && boundaries.has(start + p.length)) hits.push({ index, start, end: start + p.length });
    }
  });
  hits.sort((a, b) => a.end - b.end || b.end - b.start - (a.end - a.start) || a.index - b.index);
  const hit = hits[0];
  return hit ? { pattern: patterns[hit.index], data: hit.index, start: hit.start, end: hit.end } : null;
}

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe("the term automaton", () => {
  it("counts a hit only on grapheme boundaries: never half an emoji, a skin tone, a ZWJ sequence or a letter with a combining mark", () => {
    const words = ["e", "❤", "👍", "cafe", "👩", "ily 👩"];
    const automaton = new TermAutomaton(words.map((pattern) => ({ pattern, data: pattern })));
    expect(automaton.first("e\u0301")).toBeNull();
    expect(automaton.first("👍🏽")).toBeNull();
    expect(automaton.first("👨‍👩‍👧")).toBeNull();
    expect(automaton.first("❤️ and ❤")).toEqual({ pattern: "❤", data: "❤", start: 7, end: 8 });
    expect(automaton.first("cafe\u0301 cafe")).toEqual({ pattern: "cafe", data: "cafe", start: 6, end: 10 });
    expect(automaton.first("👨‍👩‍👧 family 👩")).toEqual({ pattern: "ily 👩", data: "ily 👩", start: 12, end: 18 });
    expect(automaton.first("")).toBeNull();
  });

  it("at one end, names the longer pattern first, then the one listed first; an empty pattern never matches", () => {
    const automaton = new TermAutomaton(["", "he", "she", "he", "hers"].map((pattern, i) => ({ pattern, data: i })));
    expect(automaton.first("ushers")).toEqual({ pattern: "she", data: 2, start: 1, end: 4 });
    expect(automaton.first("the")).toEqual({ pattern: "he", data: 1, start: 1, end: 3 });
    expect(automaton.first("xyz")).toBeNull();
  });

  it("agrees with a scan of every pattern on random dictionaries and texts (failure links, overlaps, surrogates, combining marks)", () => {
    // A small alphabet makes overlaps and failure-link walks common; the marks, the skin tone,
    // the ZWJ and the variation selector make boundaries fall inside candidate hits.
    const alphabet = ["a", "b", "c", "ab", "猫", "\u0301", "👍", "\u{1F3FD}", "\u200D", "\uFE0F", " "];
    const random = rng(41);
    const pick = () => alphabet[Math.floor(random() * alphabet.length)]!;
    let found = 0;
    for (let round = 0; round < 300; round++) {
      const patterns = Array.from({ length: 1 + Math.floor(random() * 12) }, () => Array.from({ length: 1 + Math.floor(random() * 4) }, pick).join(""));
      const automaton = new TermAutomaton(patterns.map((pattern, data) => ({ pattern, data })));
      for (let t = 0; t < 20; t++) {
        const text = Array.from({ length: Math.floor(random() * 30) }, pick).join("");
        const expected = firstByScan(patterns, text);
        if (expected) found++;
        expect(automaton.first(text), `${JSON.stringify(patterns)} in ${JSON.stringify(text)}`).toEqual(expected);
      }
    }
    // The run compared hits, not only misses.
    expect(found).toBeGreaterThan(1_000);
  });
});
