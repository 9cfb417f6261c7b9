CREATE TABLE "bank_link_items" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"user_id" uuid,
	"provider_item_id" text NOT NULL,
	"access_token_sealed" text NOT NULL,
	"institution_id" text,
	"institution_name" text,
	"accounts" jsonb NOT NULL,
	"status" text NOT NULL,
	"error_code" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "bank_link_items_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "bank_link_originators" (
	"tenant_id" uuid NOT NULL,
	"originator_client_id" text NOT NULL,
	"company_name" text NOT NULL,
	"diligence_status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "bank_link_originators_pkey" PRIMARY KEY("tenant_id","originator_client_id")
);
--> statement-breakpoint
CREATE TABLE "bank_link_settings" (
	"tenant_id" uuid PRIMARY KEY NOT NULL,
	"base_url" text,
	"environment" text NOT NULL,
	"client_id" text NOT NULL,
	"secret_sealed" text NOT NULL,
	"originator_client_id" text,
	"redirect_allow" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bank_link_sandbox_clients" (
	"client_id" text PRIMARY KEY NOT NULL,
	"secret_hash" text NOT NULL,
	"webhook_url" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bank_link_sandbox_items" (
	"item_id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"access_token_hash" text,
	"institution_id" text NOT NULL,
	"institution_name" text NOT NULL,
	"webhook" text,
	"accounts" jsonb NOT NULL,
	"error_code" text,
	"created_at" timestamp with time zone NOT NULL,
	"removed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "bank_link_sandbox_link_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"client_name" text NOT NULL,
	"client_user_id" text NOT NULL,
	"products" jsonb NOT NULL,
	"webhook" text,
	"completion_redirect_uri" text,
	"institution_id" text,
	"signed_in_at" timestamp with time zone,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bank_link_sandbox_originators" (
	"originator_client_id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"seq" integer NOT NULL,
	"company_name" text NOT NULL,
	"diligence_status" text NOT NULL,
	"questionnaire" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bank_link_sandbox_public_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"item_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "bank_link_sandbox_questionnaires" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"originator_client_id" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bank_link_sandbox_webhook_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_jwk_sealed" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expired_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "bank_link_items" ADD CONSTRAINT "bank_link_items_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_link_originators" ADD CONSTRAINT "bank_link_originators_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_link_settings" ADD CONSTRAINT "bank_link_settings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "bank_link_items_provider_item_unique" ON "bank_link_items" USING btree ("tenant_id","provider_item_id");--> statement-breakpoint
CREATE INDEX "bank_link_items_tenant_user_idx" ON "bank_link_items" USING btree ("tenant_id","user_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "bank_link_sandbox_items_access_idx" ON "bank_link_sandbox_items" USING btree ("access_token_hash");--> statement-breakpoint
CREATE INDEX "bank_link_sandbox_items_client_idx" ON "bank_link_sandbox_items" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "bank_link_sandbox_link_tokens_client_idx" ON "bank_link_sandbox_link_tokens" USING btree ("client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "bank_link_sandbox_originators_client_seq_idx" ON "bank_link_sandbox_originators" USING btree ("client_id","seq");