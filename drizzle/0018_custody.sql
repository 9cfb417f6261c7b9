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
ALTER TABLE "custody_transactions" ADD CONSTRAINT "custody_transactions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custody_transfers" ADD CONSTRAINT "custody_transfers_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custody_vaults" ADD CONSTRAINT "custody_vaults_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "custody_transactions_provider_unique" ON "custody_transactions" USING btree ("tenant_id","provider_transaction_id");--> statement-breakpoint
CREATE UNIQUE INDEX "custody_transfers_provider_unique" ON "custody_transfers" USING btree ("tenant_id","provider","provider_transfer_id");--> statement-breakpoint
CREATE INDEX "custody_transfers_tenant_user_idx" ON "custody_transfers" USING btree ("tenant_id","user_id","id");--> statement-breakpoint
CREATE INDEX "custody_vaults_tenant_user_idx" ON "custody_vaults" USING btree ("tenant_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "custody_a_sandbox_clients_label_unique" ON "custody_a_sandbox_clients" USING btree ("label");--> statement-breakpoint
CREATE UNIQUE INDEX "custody_a_sandbox_transactions_external_unique" ON "custody_a_sandbox_transactions" USING btree ("api_key","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "custody_a_sandbox_transfers_idempotent_unique" ON "custody_a_sandbox_transfers" USING btree ("api_key","idempotent_id");--> statement-breakpoint
CREATE INDEX "custody_a_sandbox_vaults_key_idx" ON "custody_a_sandbox_vaults" USING btree ("api_key");--> statement-breakpoint
CREATE INDEX "custody_a_sandbox_wallets_vault_idx" ON "custody_a_sandbox_wallets" USING btree ("api_key","vault_id");