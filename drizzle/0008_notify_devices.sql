CREATE TABLE "notify_devices" (
	"user_id" bigint NOT NULL,
	"device_id" text NOT NULL,
	"kind" text NOT NULL,
	"address" text NOT NULL,
	"details" text DEFAULT '{}' NOT NULL,
	"registered_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notify_devices_user_id_device_id_pk" PRIMARY KEY("user_id","device_id")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "notify_devices_kind_address_idx" ON "notify_devices" USING btree ("kind","address");