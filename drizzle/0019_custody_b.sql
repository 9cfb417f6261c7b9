CREATE TABLE "custody_transactions" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"vault_id" uuid NOT NULL,
	"wallet_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"type" text NOT NULL,
	"provider_transaction_id" text NOT NULL,
	"external_id" text NOT NULL,
	"status" text NOT NULL,
	"symbol" text,
	"qty" text,
	"destination_address" text,
	"contract" text,
	"hash" text,
	"failure_reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "custody_transactions_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "custody_transfers" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"idempotent_id" text NOT NULL,
	"source_wallet_id" uuid NOT NULL,
	"source_type" text NOT NULL,
	"destination_id" text NOT NULL,
	"destination_type" text NOT NULL,
	"asset_type" text NOT NULL,
	"amount" text NOT NULL,
	"deduct_fee" boolean NOT NULL,
	"transfer_memo" text,
	"questionnaire_sealed" text,
	"provider_transfer_id" text NOT NULL,
	"status" text NOT NULL,
	"hash" text,
	"failure_reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "custody_transfers_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "custody_vaults" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"provider_vault_id" text NOT NULL,
	"name" text NOT NULL,
	"wallet_ids" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "custody_vaults_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "custody_a_sandbox_clients" (
	"api_key" text PRIMARY KEY NOT NULL,
	"label" text NOT NULL,
	"public_key_pem" text NOT NULL,
	"private_key_sealed" text NOT NULL,
	"webhook_url" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "custody_a_sandbox_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"public_key_pem" text NOT NULL,
	"private_key_sealed" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "custody_a_sandbox_transactions" (
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
	"failure_reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "custody_a_sandbox_transfers" (
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
	"failure_reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "custody_a_sandbox_vaults" (
	"id" text PRIMARY KEY NOT NULL,
	"api_key" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "custody_a_sandbox_wallets" (
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
CREATE TABLE "custody_b_sandbox_challenges" (
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
CREATE TABLE "custody_b_sandbox_credentials" (
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
CREATE TABLE "custody_b_sandbox_nonces" (
	"nonce" text PRIMARY KEY NOT NULL,
	"seen_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "custody_b_sandbox_orgs" (
	"org_id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"app_id" text NOT NULL,
	"sealed_service_account" text NOT NULL,
	"service_user_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "custody_b_sandbox_orgs_tenant_unique" UNIQUE("tenant_id")
);
--> statement-breakpoint
CREATE TABLE "custody_b_sandbox_signatures" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"wallet_id" text NOT NULL,
	"kind" text NOT NULL,
	"request_body" jsonb NOT NULL,
	"signature" jsonb,
	"signed_data" text,
	"tx_hash" text,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "custody_b_sandbox_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "custody_b_sandbox_user_actions" (
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
CREATE TABLE "custody_b_sandbox_users" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"kind" text NOT NULL,
	"username" text NOT NULL,
	"external_id" text,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "custody_b_sandbox_wallets" (
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
CREATE TABLE "custody_b_challenges" (
	"tenant_id" uuid NOT NULL,
	"identifier_hash" text NOT NULL,
	"user_id" uuid NOT NULL,
	"purpose" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"body_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "custody_b_challenges_pkey" PRIMARY KEY("tenant_id","identifier_hash")
);
--> statement-breakpoint
CREATE TABLE "custody_b_users" (
	"tenant_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"status" text NOT NULL,
	"provider_user_id" text NOT NULL,
	"username" text NOT NULL,
	"registration_token_sealed" text,
	"registration_expires_at" timestamp with time zone,
	"credential" jsonb,
	"registered_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "custody_b_users_pkey" PRIMARY KEY("tenant_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "custody_transactions" ADD CONSTRAINT "custody_transactions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custody_transfers" ADD CONSTRAINT "custody_transfers_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custody_vaults" ADD CONSTRAINT "custody_vaults_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custody_b_challenges" ADD CONSTRAINT "custody_b_challenges_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custody_b_users" ADD CONSTRAINT "custody_b_users_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "custody_transactions_provider_unique" ON "custody_transactions" USING btree ("tenant_id","provider_transaction_id");--> statement-breakpoint
CREATE UNIQUE INDEX "custody_transfers_provider_unique" ON "custody_transfers" USING btree ("tenant_id","provider","provider_transfer_id");--> statement-breakpoint
CREATE INDEX "custody_transfers_tenant_user_idx" ON "custody_transfers" USING btree ("tenant_id","user_id","id");--> statement-breakpoint
CREATE INDEX "custody_vaults_tenant_user_idx" ON "custody_vaults" USING btree ("tenant_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "custody_a_sandbox_clients_label_unique" ON "custody_a_sandbox_clients" USING btree ("label");--> statement-breakpoint
CREATE UNIQUE INDEX "custody_a_sandbox_transactions_external_unique" ON "custody_a_sandbox_transactions" USING btree ("api_key","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "custody_a_sandbox_transfers_idempotent_unique" ON "custody_a_sandbox_transfers" USING btree ("api_key","idempotent_id");--> statement-breakpoint
CREATE INDEX "custody_a_sandbox_vaults_key_idx" ON "custody_a_sandbox_vaults" USING btree ("api_key");--> statement-breakpoint
CREATE INDEX "custody_a_sandbox_wallets_vault_idx" ON "custody_a_sandbox_wallets" USING btree ("api_key","vault_id");--> statement-breakpoint
CREATE INDEX "custody_b_sandbox_credentials_user_idx" ON "custody_b_sandbox_credentials" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "custody_b_sandbox_users_org_username_unique" ON "custody_b_sandbox_users" USING btree ("org_id","username");--> statement-breakpoint
CREATE INDEX "custody_b_sandbox_wallets_org_user_idx" ON "custody_b_sandbox_wallets" USING btree ("org_id","user_id");--> statement-breakpoint
CREATE INDEX "custody_b_challenges_tenant_user_idx" ON "custody_b_challenges" USING btree ("tenant_id","user_id","expires_at");