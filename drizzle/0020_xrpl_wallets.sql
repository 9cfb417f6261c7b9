CREATE TABLE "xrpl_challenges" (
	"tenant_id" uuid NOT NULL,
	"nonce_hash" text NOT NULL,
	"user_id" uuid NOT NULL,
	"address" text,
	"message" text NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	CONSTRAINT "xrpl_challenges_pkey" PRIMARY KEY("tenant_id","nonce_hash")
);
--> statement-breakpoint
CREATE TABLE "xrpl_submissions" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"user_id" uuid,
	"network" text NOT NULL,
	"hash" text NOT NULL,
	"account" text NOT NULL,
	"transaction_type" text NOT NULL,
	"sequence" integer NOT NULL,
	"last_ledger_sequence" integer NOT NULL,
	"tx_blob" text NOT NULL,
	"status" text NOT NULL,
	"engine_result" text,
	"result" text,
	"ledger_index" integer,
	"attempts" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "xrpl_submissions_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "xrpl_challenges" ADD CONSTRAINT "xrpl_challenges_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "xrpl_submissions" ADD CONSTRAINT "xrpl_submissions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "xrpl_challenges_tenant_user_idx" ON "xrpl_challenges" USING btree ("tenant_id","user_id","expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "xrpl_submissions_tenant_hash_unique" ON "xrpl_submissions" USING btree ("tenant_id","network","hash");--> statement-breakpoint
CREATE INDEX "xrpl_submissions_account_idx" ON "xrpl_submissions" USING btree ("network","account","status","sequence");--> statement-breakpoint
CREATE INDEX "xrpl_submissions_status_idx" ON "xrpl_submissions" USING btree ("status");