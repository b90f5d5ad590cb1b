CREATE TABLE "notify_preferences" (
	"user_id" bigint PRIMARY KEY NOT NULL,
	"preferences" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
