/**
 * The per-isolate copy of post cache entries (`feed:post:{id}`: JSON `[authorId, text, createdAt,
 * createdAtMs]`) of posts that live on another database than the reader's, so that a page at
 * N > 1 whose posts this isolate has drawn before needs no request to their databases.
 *
 * Why a copy without an age bound is exact: an entry never changes once written — a post has no
 * edit; its one change, a delete, writes a tombstone to EVERY database in the delete's own round,
 * and round 1 of every page reads each item's `feed:post:{id}` on the reader's database, so a
 * deleted post is dropped there before any copy is looked at (timeline.ts only asks this copy for
 * posts round 1 found no tombstone for). And should that tombstone have missed the reader's database
 * (down at the delete, until the per-minute cron writes it again), the entry is only served beside
 * the post's counters from the counters' edge copy: the post's database, asked for both whenever
 * that copy is past its bound, answers the tombstone within the bound. Tombstones are never kept
 * here; a delete in this isolate drops its copy as well.
 */
export class PostCopies {
  readonly #entries = new Map<string, PostCopy>();
  /** Entries placed (kept, or moved last by a use) so far: orders the placements. */
  #placed = 0;

  constructor(
    /** Entries kept; the least recently used goes first. */
    readonly capacity = POST_COPIES,
  ) {}

  /** The entry of post `id` if this isolate keeps one. */
  get(id: string): string | undefined {
    return this.copy(id)?.value;
  }

  /** The entry of post `id` and its creation time (`entryCreatedAtMs`), if this isolate keeps one. */
  copy(id: string): Readonly<PostCopy> | undefined {
    const copy = this.#entries.get(id);
    if (copy === undefined) return undefined;
    // Most recently used last (Map keeps insertion order). An entry placed among the newest half
    // is left where it is: it is half the capacity away from eviction, and is moved last once a
    // use finds it past that (a ranked page looks up hundreds of copies; a move is a delete and
    // an insert).
    if (this.#placed - copy.placed > this.capacity / 2) {
      this.#entries.delete(id);
      this.#entries.set(id, copy);
      copy.placed = ++this.#placed;
    }
    return copy;
  }

  /** Keeps the live entry `value` of post `id`, as read from the post's database; answers the copy. */
  keep(id: string, value: string): Readonly<PostCopy> {
    const copy = { value, createdAtMs: entryCreatedAtMs(value), placed: ++this.#placed };
    this.#entries.delete(id);
    this.#entries.set(id, copy);
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
    return copy;
  }

  /** Drops the copy of a deleted post. */
  forget(id: string): void {
    this.#entries.delete(id);
  }

  get size(): number {
    return this.#entries.size;
  }
}

type PostCopy = { value: string; createdAtMs: number | undefined; placed: number };

/**
 * The creation time (ms) a post entry ends with, read as the ranked page script reads it
 * (`rank_candidates`: a `,digits]` within its last 24 characters); undefined when the entry has none.
 */
export function entryCreatedAtMs(entry: string): number | undefined {
  const found = /,(-?\d+)\]$/.exec(entry.slice(-24));
  return found ? Number(found[1]) : undefined;
}

/** Posts one isolate keeps (an entry is ~150–400 bytes with its key: ~4 MB at most of a 128 MB isolate). */
export const POST_COPIES = 10_000;

/** The one copy of this isolate. */
export const postCopies = new PostCopies();
