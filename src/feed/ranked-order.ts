/**
 * The order of a ranking: score descending, ties by place ascending (the newer post first), as
 * `sort((a, b) => b.score - a.score || a.position - b.position)` orders it, without calling a JS
 * comparator per comparison. At N > 1 the Worker merges ~300 scored candidates on every ranked
 * first page, and that comparator's ~2,500 calls were the largest part of the merge's CPU. Here
 * the scores are sorted natively (a Float64Array: numeric order, no callback), each candidate's
 * slot is the number of scores above its own (a binary search over plain doubles), and the rare
 * ties (equal doubles) are put in place order within their slots. A score that is not a number
 * (none is: the scores are finite by construction) ranks last.
 */
export function inRankedOrder<T extends { readonly score: number; readonly position: number }>(scored: readonly T[]): T[] {
  const n = scored.length;
  const ascending = new Float64Array(n);
  for (let i = 0; i < n; i++) ascending[i] = scoreOf(scored[i]!);
  ascending.sort();
  const out = new Array<T | undefined>(n).fill(undefined);
  let tied = false;
  for (let i = 0; i < n; i++) {
    const c = scored[i]!;
    const score = scoreOf(c);
    // The first index holding a score above this one: as many scores rank above it as sit from there on.
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ascending[mid]! <= score) lo = mid + 1;
      else hi = mid;
    }
    let slot = n - lo;
    while (out[slot] !== undefined) slot++; // an equal score took it: the next slot of the same score
    tied ||= slot !== n - lo;
    out[slot] = c;
  }
  const ranked = out as T[];
  if (tied) {
    // Each run of equal scores, in place order (runs are short and rare).
    for (let start = 0; start < n; ) {
      let end = start + 1;
      while (end < n && scoreOf(ranked[end]!) === scoreOf(ranked[start]!)) end++;
      if (end - start > 1) {
        const run = ranked.slice(start, end).sort((a, b) => a.position - b.position);
        for (let k = 0; k < run.length; k++) ranked[start + k] = run[k]!;
      }
      start = end;
    }
  }
  return ranked;
}

const scoreOf = (c: { readonly score: number }) => (Number.isNaN(c.score) ? Number.NEGATIVE_INFINITY : c.score);
