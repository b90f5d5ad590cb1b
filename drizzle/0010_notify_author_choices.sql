CREATE TABLE "notify_author_choices" (
	"user_id" bigint NOT NULL,
	"author_id" bigint NOT NULL,
	"chosen_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notify_author_choices_user_id_author_id_pk" PRIMARY KEY("user_id","author_id")
);
--> statement-breakpoint
CREATE INDEX "notify_author_choices_author_user_idx" ON "notify_author_choices" USING btree ("author_id","user_id");