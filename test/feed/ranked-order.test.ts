/**
 * `inRankedOrder` (src/feed/ranked-order.ts), the merge order of a ranked first page at N > 1: it
 * must be exactly the comparator order it replaces — score descending, equal scores by place
 * ascending (the newer post first) — or a page at N = 3 would not be N = 1's page.
 */
import { describe, expect, it } from "vitest";
import { inRankedOrder } from "../../src/feed/ranked-order";

type Candidate = { id: string; position: number; score: number };
const byComparator = (items: readonly Candidate[]) => [...items].sort((a, b) => b.score - a.score || a.position - b.position);

/** A deterministic generator (a test that fails names its seed). */
function random(seed: number) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe("inRankedOrder", () => {
  it("orders as the comparator does, over random candidates with many exact ties, in any input order", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rand = random(seed);
      const n = Math.floor(rand() * 320);
      // Few distinct scores (ties everywhere) for some seeds, distinct doubles for others.
      const distinct = seed % 3 === 0 ? 1 + Math.floor(rand() * 5) : 0;
      const places = Array.from({ length: n }, (_, i) => i).sort(() => rand() - 0.5);
      const items = places.map((position) => ({
        id: `p${position}`,
        position,
        score: distinct > 0 ? Math.floor(rand() * distinct) / 7 : rand() / (1 + position / 24) ** 1.5,
      }));
      expect(inRankedOrder(items).map((c) => c.id), `seed ${seed}`).toEqual(byComparator(items).map((c) => c.id));
    }
  });

  it("keeps the candidates themselves, and handles none, one, zero scores and both zeros", () => {
    expect(inRankedOrder([])).toEqual([]);
    const one = { id: "a", position: 0, score: 1 };
    expect(inRankedOrder([one])[0]).toBe(one);
    const items = [
      { id: "c", position: 2, score: 0 },
      { id: "b", position: 1, score: -0 },
      { id: "d", position: 3, score: 5e-324 },
      { id: "a", position: 0, score: 0 },
    ];
    expect(inRankedOrder(items).map((c) => c.id)).toEqual(["d", "a", "b", "c"]);
  });
});
