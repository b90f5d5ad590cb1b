/**
 * What is counted: entity → fields. Adding a field is one line here; reads return every field of
 * the entity (zero when never moved), increments reject fields not listed (400 naming them).
 * Append new fields at the end and never rename or reorder one: the cache packs values in this
 * order (`keys.ts`), and only a change in the NUMBER of fields makes old packed values read as misses (a reorder
 * must come with a new cache key prefix).
 */
export const COUNTER_REGISTRY = {
  user: ["followers", "following", "posts", "comments", "likes_received", "coins", "groups"],
  post: ["views", "comments", "likes", "favorites", "forwards"],
  group: ["subscribers", "posts", "featured"],
} as const satisfies Record<string, readonly string[]>;

export type CounterEntity = keyof typeof COUNTER_REGISTRY;
export const COUNTER_ENTITIES = Object.keys(COUNTER_REGISTRY) as [CounterEntity, ...CounterEntity[]];

/** |delta| of one field in one call; keeps any sum of a day's deltas far inside int64 and Lua's 2^53. */
export const MAX_ABS_DELTA = 1_000_000_000;

export function isCounterEntity(value: string): value is CounterEntity {
  return Object.hasOwn(COUNTER_REGISTRY, value);
}

export function fieldsOf(entity: CounterEntity): readonly string[] {
  return COUNTER_REGISTRY[entity];
}

export function isCounterField(entity: CounterEntity, field: string): boolean {
  return (COUNTER_REGISTRY[entity] as readonly string[]).includes(field);
}

/** One change to one counter. Several may target the same entity; they are applied in one script call. */
export type CounterDelta = { entity: CounterEntity; id: string; field: string; delta: number };
