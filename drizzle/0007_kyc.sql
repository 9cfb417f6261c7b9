CREATE TABLE "idv_provider_configs" (
	"tenant_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"base_url" text,
	"client_id" text NOT NULL,
	"webhook_secret_sealed" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idv_provider_configs_pkey" PRIMARY KEY("tenant_id","provider")
);
--> statement-breakpoint
CREATE TABLE "kyc_audit" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"kyc_id" uuid NOT NULL,
	"action" text NOT NULL,
	"from_status" text,
	"to_status" text,
	"changes" jsonb,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"reason" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "kyc_audit_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "kyc_records" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"provider_session_id" text,
	"session_url" text,
	"flow" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"first_name" text,
	"last_name" text,
	"date_of_birth" text,
	"country" text,
	"document_type" text,
	"level" text DEFAULT 'basic' NOT NULL,
	"wallet_address" text,
	"wallet_chain" text,
	"challenge" text,
	"wallet_verified" boolean DEFAULT false NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "kyc_records_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "kyc_webhooks" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"provider" text NOT NULL,
	"kind" text NOT NULL,
	"digest" text NOT NULL,
	"kyc_id" uuid,
	"outcome" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	CONSTRAINT "kyc_webhooks_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "identity_roots" (
	"tenant_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"root" text NOT NULL,
	"entries" jsonb NOT NULL,
	"tree" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "identity_roots_pkey" PRIMARY KEY("tenant_id","user_id","version")
);
--> statement-breakpoint
CREATE TABLE "identity_salts" (
	"tenant_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"path" text NOT NULL,
	"salt" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "identity_salts_pkey" PRIMARY KEY("tenant_id","user_id","path")
);
--> statement-breakpoint
CREATE TABLE "accreditation_audit" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"accreditation_id" uuid NOT NULL,
	"from_status" text,
	"to_status" text NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"reason" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "accreditation_audit_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "accreditations" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"type" text NOT NULL,
	"document_ids" jsonb NOT NULL,
	"notes" text,
	"status" text NOT NULL,
	"reason" text,
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "accreditations_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "idv_provider_configs" ADD CONSTRAINT "idv_provider_configs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kyc_audit" ADD CONSTRAINT "kyc_audit_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kyc_records" ADD CONSTRAINT "kyc_records_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kyc_webhooks" ADD CONSTRAINT "kyc_webhooks_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity_roots" ADD CONSTRAINT "identity_roots_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity_salts" ADD CONSTRAINT "identity_salts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "accreditation_audit" ADD CONSTRAINT "accreditation_audit_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "accreditations" ADD CONSTRAINT "accreditations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "kyc_audit_tenant_kyc_idx" ON "kyc_audit" USING btree ("tenant_id","kyc_id","id");--> statement-breakpoint
CREATE INDEX "kyc_records_tenant_user_idx" ON "kyc_records" USING btree ("tenant_id","user_id","id");--> statement-breakpoint
CREATE INDEX "kyc_records_tenant_status_idx" ON "kyc_records" USING btree ("tenant_id","status","id");--> statement-breakpoint
CREATE UNIQUE INDEX "kyc_records_tenant_session_unique" ON "kyc_records" USING btree ("tenant_id","provider","provider_session_id") WHERE "kyc_records"."provider_session_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "kyc_webhooks_tenant_digest_unique" ON "kyc_webhooks" USING btree ("tenant_id","provider","digest");--> statement-breakpoint
CREATE INDEX "accreditation_audit_tenant_item_idx" ON "accreditation_audit" USING btree ("tenant_id","accreditation_id","id");--> statement-breakpoint
CREATE INDEX "accreditations_tenant_user_idx" ON "accreditations" USING btree ("tenant_id","user_id","id");