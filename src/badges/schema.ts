import { sql } from "drizzle-orm";
import { bigint, index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { idColumn } from "../db/columns";

export const MAX_BROADCAST_TITLE = 200;
export const MAX_BROADCAST_BODY = 5000;

/** System broadcasts: one row per broadcast, nothing per recipient (read diffusion by id). */
export const broadcasts = pgTable("broadcasts", {
  id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
  title: text("title").notNull(),
  body: text("body").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
});

/** A user's last-read broadcast id (the truth behind the Redis marker; only ever raised). */
export const broadcastReads = pgTable("broadcast_reads", {
  userId: idColumn("user_id").primaryKey(),
  lastReadId: bigint("last_read_id", { mode: "bigint" }).notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
});

/** Who belongs to which stream (`view_code/view_id`, e.g. chat/812); decides what counts toward a total. */
export const streamMembers = pgTable(
  "stream_members",
  {
    userId: idColumn("user_id").notNull(),
    viewCode: text("view_code").notNull(),
    viewId: idColumn("view_id").notNull(),
    joinedAt: timestamp("joined_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.viewCode, t.viewId] })],
);

/** Last access of a user to a view (stream): survives Redis loss; the repair cron reads it. */
export const userAccessLog = pgTable(
  "user_access_log",
  {
    userId: idColumn("user_id").notNull(),
    viewCode: text("view_code").notNull(),
    viewId: idColumn("view_id").notNull(),
    lastAccessAt: timestamp("last_access_at", { withTimezone: true, mode: "string" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.viewCode, t.viewId] }),
    // "Most recently active users first" for the repair cron.
    index("user_access_log_last_access_idx").on(t.lastAccessAt.desc()),
  ],
);

export const MAX_MESSAGE_TYPE = 32;
export const MAX_MESSAGE_TITLE = 200;
export const MAX_MESSAGE_CONTENT = 10_000;

/** Inbox messages (Postgres truth); per-user read state lives in `inbox_recipients`. */
export const inboxMessages = pgTable("inbox_messages", {
  id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
  type: text("type").notNull(),
  title: text("title").notNull(),
  content: text("content").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
});

export const inboxRecipients = pgTable(
  "inbox_recipients",
  {
    userId: idColumn("user_id").notNull(),
    messageId: bigint("message_id", { mode: "bigint" })
      .notNull()
      .references(() => inboxMessages.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    readAt: timestamp("read_at", { withTimezone: true, mode: "string" }),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.messageId] }),
    // Unread count by type (rebuild) and "unread of type X" lists.
    index("inbox_recipients_unread_idx").on(t.userId, t.type).where(sql`${t.readAt} is null`),
    // "Messages sent most recently" → recently active recipients for the repair cron.
    index("inbox_recipients_message_idx").on(t.messageId),
  ],
);
