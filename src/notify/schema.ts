import { index, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { idColumn } from "../db/columns";

/**
 * The places a user's notifications go. `address` is the Web Push endpoint or the FCM/APNs token:
 * unique per kind, so a browser or phone is one row whoever registered it last (registering it
 * again moves the row, never copies it). `details` holds the rest of the registration as JSON
 * (Web Push keys; APNs environment and topic).
 */
export const notifyDevices = pgTable(
  "notify_devices",
  {
    userId: idColumn("user_id").notNull(),
    deviceId: text("device_id").notNull(),
    kind: text("kind").notNull(),
    address: text("address").notNull(),
    details: text("details").notNull().default("{}"),
    registeredAt: timestamp("registered_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  (t) => [
    // Also serves "a user's devices" (the list, the cache fill, the cap): at most 20 rows to sort.
    primaryKey({ columns: [t.userId, t.deviceId] }),
    // One row per endpoint/token: the arbiter of the registration's upsert.
    uniqueIndex("notify_devices_kind_address_idx").on(t.kind, t.address),
  ],
);

/**
 * A user's push preferences (`GET/PUT /v1/me/notification-preferences`) as JSON: one row per user
 * who changed them; no row means the defaults. Cached in Redis on the user's database.
 */
export const notifyPreferences = pgTable("notify_preferences", {
  userId: idColumn("user_id").primaryKey(),
  preferences: text("preferences").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
});

/**
 * Followed authors whose posts a user chose to be told of (`/v1/me/notification-authors`): one row
 * per (user, author), at most MAX_NOTIFY_AUTHORS per user, only authors the user follows (an
 * unfollow deletes the row). Read both ways: a user's choices (the primary key), and an author's
 * choosers when they post (the reverse index), so a post never walks its author's followers.
 */
export const notifyAuthorChoices = pgTable(
  "notify_author_choices",
  {
    userId: idColumn("user_id").notNull(),
    authorId: idColumn("author_id").notNull(),
    chosenAt: timestamp("chosen_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  (t) => [
    // A user's choices: the list, the cap, a change.
    primaryKey({ columns: [t.userId, t.authorId] }),
    // An author's choosers, paged by user id when they post; also answers "has anyone chosen this
    // author?" inside the post's own INSERT (an index probe).
    index("notify_author_choices_author_user_idx").on(t.authorId, t.userId),
  ],
);
