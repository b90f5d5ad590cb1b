CREATE TABLE "broadcast_reads" (
	"user_id" bigint PRIMARY KEY NOT NULL,
	"last_read_id" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "broadcasts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "broadcasts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"title" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inbox_messages" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "inbox_messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"type" text NOT NULL,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inbox_recipients" (
	"user_id" bigint NOT NULL,
	"message_id" bigint NOT NULL,
	"type" text NOT NULL,
	"read_at" timestamp with time zone,
	CONSTRAINT "inbox_recipients_user_id_message_id_pk" PRIMARY KEY("user_id","message_id")
);
--> statement-breakpoint
CREATE TABLE "stream_members" (
	"user_id" bigint NOT NULL,
	"view_code" text NOT NULL,
	"view_id" bigint NOT NULL,
	"joined_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "stream_members_user_id_view_code_view_id_pk" PRIMARY KEY("user_id","view_code","view_id")
);
--> statement-breakpoint
CREATE TABLE "user_access_log" (
	"user_id" bigint NOT NULL,
	"view_code" text NOT NULL,
	"view_id" bigint NOT NULL,
	"last_access_at" timestamp with time zone NOT NULL,
	CONSTRAINT "user_access_log_user_id_view_code_view_id_pk" PRIMARY KEY("user_id","view_code","view_id")
);
--> statement-breakpoint
ALTER TABLE "inbox_recipients" ADD CONSTRAINT "inbox_recipients_message_id_inbox_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."inbox_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "inbox_recipients_unread_idx" ON "inbox_recipients" USING btree ("user_id","type") WHERE "inbox_recipients"."read_at" is null;--> statement-breakpoint
CREATE INDEX "inbox_recipients_message_idx" ON "inbox_recipients" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "user_access_log_last_access_idx" ON "user_access_log" USING btree ("last_access_at" DESC NULLS LAST);