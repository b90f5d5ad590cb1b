/**
 * An Aho–Corasick automaton over UTF-16 code units whose hits count only on grapheme boundaries.
 *
 * Why not segment first: splitting every post into grapheme clusters (`Intl.Segmenter`) before
 * scanning costs far more than the scan itself, and nearly every post has no hit at all. So the
 * scan walks code units (one map probe per unit, a table for the root state where most units
 * land), and only a candidate hit pays for segmentation, once per text: a hit counts when it
 * starts and ends on a grapheme boundary, so a term never matches half an emoji, half a ZWJ
 * sequence or a letter carrying a combining mark.
 *
 * Hits come in the order of their end; at one end, longer patterns first, then input order.
 */
export type TermHit<T> = { pattern: string; data: T; start: number; end: number };

export class TermAutomaton<T> {
  /** The root's transitions, dense: most code units of a post are read in the root state. */
  private readonly rootNext = new Int32Array(0x10000);
  /** Each state's transitions (index 0, the root, uses `rootNext`). */
  private readonly next: Map<number, number>[] = [new Map()];
  private readonly fail: Int32Array;
  /** The patterns (indexes) that end exactly at each state, input order; all of the state's depth. */
  private readonly own: (number[] | undefined)[] = [undefined];
  /** The nearest state down the failure chain with patterns of its own (0: none). */
  private readonly outLink: Int32Array;
  private readonly depth: number[] = [0];

  constructor(private readonly patterns: readonly { pattern: string; data: T }[]) {
    patterns.forEach(({ pattern }, index) => {
      if (pattern.length === 0) return;
      let state = 0;
      for (let i = 0; i < pattern.length; i++) {
        const unit = pattern.charCodeAt(i);
        let to = this.next[state]!.get(unit);
        if (to === undefined) {
          to = this.next.length;
          this.next.push(new Map());
          this.own.push(undefined);
          this.depth.push(this.depth[state]! + 1);
          this.next[state]!.set(unit, to);
        }
        state = to;
      }
      (this.own[state] ??= []).push(index);
    });
    const states = this.next.length;
    this.fail = new Int32Array(states);
    this.outLink = new Int32Array(states);
    for (const [unit, to] of this.next[0]!) this.rootNext[unit] = to;
    // Breadth first: a state's failure target is shallower, so it is final before the state is read.
    const queue: number[] = [...this.next[0]!.values()];
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      for (const [unit, to] of this.next[state]!) {
        this.fail[to] = this.step(this.fail[state]!, unit);
        const f = this.fail[to]!;
        this.outLink[to] = this.own[f] ? f : this.outLink[f]!;
        queue.push(to);
      }
    }
  }

  /** The state after reading `unit` in `state`, following failure links. */
  private step(state: number, unit: number): number {
    for (;;) {
      if (state === 0) return this.rootNext[unit]!;
      const to = this.next[state]!.get(unit);
      if (to !== undefined) return to;
      state = this.fail[state]!;
    }
  }

  /** The first hit on grapheme boundaries, or null. */
  first(text: string): TermHit<T> | null {
    let boundaries: Set<number> | undefined;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      state = this.step(state, text.charCodeAt(i));
      for (let at = this.own[state] ? state : this.outLink[state]!; at !== 0; at = this.outLink[at]!) {
        const end = i + 1;
        const start = end - this.depth[at]!;
        boundaries ??= graphemeBoundaries(text);
        if (!boundaries.has(start) || !boundaries.has(end)) continue;
        const { pattern, data } = this.patterns[this.own[at]![0]!]!;
        return { pattern, data, start, end };
      }
    }
    return null;
  }
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Every grapheme cluster boundary of `text`, both ends included. */
function graphemeBoundaries(text: string): Set<number> {
  const at = new Set<number>([text.length]);
  for (const { index } of segmenter.segment(text)) at.add(index);
  return at;
}
