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
CREATE TABLE "document_signing_nonces" (
	"tenant_id" uuid NOT NULL,
	"nonce" text NOT NULL,
	"document_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"chain" text NOT NULL,
	"address" text NOT NULL,
	"document_sha256" text NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	CONSTRAINT "document_signing_nonces_pkey" PRIMARY KEY("tenant_id","nonce")
);
--> statement-breakpoint
CREATE TABLE "signed_documents" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"document_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"chain" text NOT NULL,
	"address" text NOT NULL,
	"scheme" text NOT NULL,
	"document_sha256" text NOT NULL,
	"payload" jsonb NOT NULL,
	"signature" text NOT NULL,
	"public_key" text,
	"signer_kind" text NOT NULL,
	"nonce" text NOT NULL,
	"signed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "signed_documents_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "tenant_documents" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"title" text NOT NULL,
	"metadata" jsonb NOT NULL,
	"blob_key" text NOT NULL,
	"media_type" text NOT NULL,
	"size" bigint NOT NULL,
	"source" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "tenant_documents_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "user_documents" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"type" text NOT NULL,
	"name" text NOT NULL,
	"blob_key" text NOT NULL,
	"media_type" text NOT NULL,
	"size" bigint NOT NULL,
	"source" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "user_documents_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "custody_b_challenges" ADD CONSTRAINT "custody_b_challenges_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custody_b_users" ADD CONSTRAINT "custody_b_users_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "document_signing_nonces" ADD CONSTRAINT "document_signing_nonces_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signed_documents" ADD CONSTRAINT "signed_documents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_documents" ADD CONSTRAINT "tenant_documents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_documents" ADD CONSTRAINT "user_documents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "custody_b_sandbox_credentials_user_idx" ON "custody_b_sandbox_credentials" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "custody_b_sandbox_users_org_username_unique" ON "custody_b_sandbox_users" USING btree ("org_id","username");--> statement-breakpoint
CREATE INDEX "custody_b_sandbox_wallets_org_user_idx" ON "custody_b_sandbox_wallets" USING btree ("org_id","user_id");--> statement-breakpoint
CREATE INDEX "custody_b_challenges_tenant_user_idx" ON "custody_b_challenges" USING btree ("tenant_id","user_id","expires_at");--> statement-breakpoint
CREATE INDEX "document_signing_nonces_user_idx" ON "document_signing_nonces" USING btree ("tenant_id","user_id","issued_at");--> statement-breakpoint
CREATE UNIQUE INDEX "signed_documents_signer_unique" ON "signed_documents" USING btree ("tenant_id","document_id","user_id","chain","address");--> statement-breakpoint
CREATE INDEX "signed_documents_user_idx" ON "signed_documents" USING btree ("tenant_id","user_id","id");--> statement-breakpoint
CREATE INDEX "signed_documents_document_idx" ON "signed_documents" USING btree ("tenant_id","document_id");--> statement-breakpoint
CREATE INDEX "tenant_documents_blob_idx" ON "tenant_documents" USING btree ("blob_key");--> statement-breakpoint
CREATE INDEX "user_documents_tenant_user_idx" ON "user_documents" USING btree ("tenant_id","user_id","id");--> statement-breakpoint
CREATE INDEX "user_documents_blob_idx" ON "user_documents" USING btree ("blob_key");