CREATE TABLE "recovery_codes" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"code_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "recovery_codes_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "totp_secret_sealed" text;--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "totp_pending_sealed" text;--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "totp_pending_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
CREATE UNIQUE INDEX "recovery_codes_hash_unique" ON "recovery_codes" USING btree ("code_hash");--> statement-breakpoint
CREATE INDEX "recovery_codes_user_idx" ON "recovery_codes" USING btree ("tenant_id","user_id");