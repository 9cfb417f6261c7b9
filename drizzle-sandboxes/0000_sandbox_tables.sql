-- The sandboxes' tables in their own schema. IF NOT EXISTS: on a database that ran the
-- sandboxes before, drizzle/0024_sandboxes_apart.sql moved the tables holding rows here as they
-- are (same columns, constraints and indexes); this creates the others.
CREATE SCHEMA IF NOT EXISTS "sandbox";
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."bp_a_sandbox_businesses" (
	"tenant_id" uuid NOT NULL,
	"id" text NOT NULL,
	"external_id" text,
	"name" text NOT NULL,
	"tin_last4" text NOT NULL,
	"addresses" jsonb NOT NULL,
	"people" jsonb NOT NULL,
	"website" text,
	"status" text NOT NULL,
	"tasks" jsonb NOT NULL,
	"deliveries" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "bp_a_sandbox_businesses_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."custody_a_sandbox_clients" (
	"api_key" text PRIMARY KEY NOT NULL,
	"label" text NOT NULL,
	"public_key_pem" text NOT NULL,
	"private_key_sealed" text NOT NULL,
	"webhook_url" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."custody_a_sandbox_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"public_key_pem" text NOT NULL,
	"private_key_sealed" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."custody_a_sandbox_transactions" (
	"id" text PRIMARY KEY NOT NULL,
	"api_key" text NOT NULL,
	"vault_id" text NOT NULL,
	"wallet_id" text NOT NULL,
	"external_id" text NOT NULL,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"request" jsonb NOT NULL,
	"hash" text,
	"last_ledger_sequence" text,
	"signed_tx" text,
	"failure_reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"lease_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."custody_a_sandbox_transfers" (
	"id" text PRIMARY KEY NOT NULL,
	"api_key" text NOT NULL,
	"idempotent_id" text NOT NULL,
	"source_wallet_id" text NOT NULL,
	"destination_address" text NOT NULL,
	"asset_type" text NOT NULL,
	"amount" text NOT NULL,
	"deduct_fee" boolean NOT NULL,
	"memo" text,
	"questionnaire_sealed" text,
	"status" text NOT NULL,
	"hash" text,
	"signed_tx" text,
	"failure_reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"lease_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."custody_a_sandbox_vaults" (
	"id" text PRIMARY KEY NOT NULL,
	"api_key" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."custody_a_sandbox_wallets" (
	"id" text PRIMARY KEY NOT NULL,
	"api_key" text NOT NULL,
	"vault_id" text NOT NULL,
	"blockchain" text NOT NULL,
	"network" text NOT NULL,
	"address" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"key_sealed" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."custody_b_sandbox_challenges" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"challenge" text NOT NULL,
	"method" text,
	"path" text,
	"payload" text,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."custody_b_sandbox_credentials" (
	"org_id" text NOT NULL,
	"cred_id" text NOT NULL,
	"uuid" text NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"public_key" text NOT NULL,
	"counter" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "custody_b_sandbox_credentials_pkey" PRIMARY KEY("org_id","cred_id")
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."custody_b_sandbox_nonces" (
	"nonce" text PRIMARY KEY NOT NULL,
	"seen_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."custody_b_sandbox_orgs" (
	"org_id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"app_id" text NOT NULL,
	"sealed_service_account" text NOT NULL,
	"service_user_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "custody_b_sandbox_orgs_tenant_unique" UNIQUE("tenant_id")
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."custody_b_sandbox_signatures" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"wallet_id" text NOT NULL,
	"kind" text NOT NULL,
	"request_body" jsonb NOT NULL,
	"signature" jsonb,
	"signed_data" text,
	"tx_hash" text,
	"status" text NOT NULL,
	"failure_reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"lease_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."custody_b_sandbox_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."custody_b_sandbox_user_actions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"user_id" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"payload" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."custody_b_sandbox_users" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"kind" text NOT NULL,
	"username" text NOT NULL,
	"external_id" text,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."custody_b_sandbox_wallets" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"user_id" text NOT NULL,
	"network" text NOT NULL,
	"name" text,
	"address" text NOT NULL,
	"public_key" text NOT NULL,
	"sealed_key" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."bank_link_sandbox_clients" (
	"client_id" text PRIMARY KEY NOT NULL,
	"secret_hash" text NOT NULL,
	"webhook_url" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."bank_link_sandbox_items" (
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
CREATE TABLE IF NOT EXISTS "sandbox"."bank_link_sandbox_link_tokens" (
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
CREATE TABLE IF NOT EXISTS "sandbox"."bank_link_sandbox_originators" (
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
CREATE TABLE IF NOT EXISTS "sandbox"."bank_link_sandbox_public_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"item_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."bank_link_sandbox_questionnaires" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"originator_client_id" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox"."bank_link_sandbox_webhook_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_jwk_sealed" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expired_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "bp_a_sandbox_businesses_external_unique" ON "sandbox"."bp_a_sandbox_businesses" USING btree ("tenant_id","external_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "bp_a_sandbox_businesses_id_idx" ON "sandbox"."bp_a_sandbox_businesses" USING btree ("id");--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "custody_a_sandbox_clients_label_unique" ON "sandbox"."custody_a_sandbox_clients" USING btree ("label");--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "custody_a_sandbox_transactions_external_unique" ON "sandbox"."custody_a_sandbox_transactions" USING btree ("api_key","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "custody_a_sandbox_transfers_idempotent_unique" ON "sandbox"."custody_a_sandbox_transfers" USING btree ("api_key","idempotent_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "custody_a_sandbox_vaults_key_idx" ON "sandbox"."custody_a_sandbox_vaults" USING btree ("api_key");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "custody_a_sandbox_wallets_vault_idx" ON "sandbox"."custody_a_sandbox_wallets" USING btree ("api_key","vault_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "custody_b_sandbox_credentials_user_idx" ON "sandbox"."custody_b_sandbox_credentials" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "custody_b_sandbox_users_org_username_unique" ON "sandbox"."custody_b_sandbox_users" USING btree ("org_id","username");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "custody_b_sandbox_wallets_org_user_idx" ON "sandbox"."custody_b_sandbox_wallets" USING btree ("org_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "bank_link_sandbox_items_access_idx" ON "sandbox"."bank_link_sandbox_items" USING btree ("access_token_hash");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "bank_link_sandbox_items_client_idx" ON "sandbox"."bank_link_sandbox_items" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "bank_link_sandbox_link_tokens_client_idx" ON "sandbox"."bank_link_sandbox_link_tokens" USING btree ("client_id");--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "bank_link_sandbox_originators_client_seq_idx" ON "sandbox"."bank_link_sandbox_originators" USING btree ("client_id","seq");