// Every table, gathered for drizzle-kit and the typed query builder. Each capability owns its own
// schema file next to its code.
export * from "../social/schema";
export * from "../badges/schema";
export * from "../counters/schema";
export * from "../feed/schema";
export * from "../live/schema";
export * from "../lib/ops/schema";
export * from "../notify/schema";
export * from "../safety/schema";
export * from "../accounts/schema";
