CREATE TABLE "evm_siwe_nonces" (
	"tenant_id" uuid NOT NULL,
	"nonce_hash" text NOT NULL,
	"user_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"uri" text NOT NULL,
	"chain_id" integer NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	CONSTRAINT "evm_siwe_nonces_pkey" PRIMARY KEY("tenant_id","nonce_hash")
);
--> statement-breakpoint
CREATE TABLE "wallets" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"chain" text NOT NULL,
	"network" text NOT NULL,
	"address" text NOT NULL,
	"address_key" text NOT NULL,
	"vault_id" text,
	"provider" text,
	"provider_ref" text,
	"sealed_key" text,
	"details" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "wallets_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "evm_siwe_nonces" ADD CONSTRAINT "evm_siwe_nonces_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "evm_siwe_nonces_tenant_user_idx" ON "evm_siwe_nonces" USING btree ("tenant_id","user_id","expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "wallets_tenant_chain_address_unique" ON "wallets" USING btree ("tenant_id","chain","network","address_key");--> statement-breakpoint
CREATE INDEX "wallets_tenant_user_idx" ON "wallets" USING btree ("tenant_id","user_id","kind","id");--> statement-breakpoint
CREATE INDEX "wallets_tenant_vault_idx" ON "wallets" USING btree ("tenant_id","vault_id");