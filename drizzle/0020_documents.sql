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
ALTER TABLE "document_signing_nonces" ADD CONSTRAINT "document_signing_nonces_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signed_documents" ADD CONSTRAINT "signed_documents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_documents" ADD CONSTRAINT "tenant_documents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_documents" ADD CONSTRAINT "user_documents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "document_signing_nonces_user_idx" ON "document_signing_nonces" USING btree ("tenant_id","user_id","issued_at");--> statement-breakpoint
CREATE UNIQUE INDEX "signed_documents_signer_unique" ON "signed_documents" USING btree ("tenant_id","document_id","user_id","chain","address");--> statement-breakpoint
CREATE INDEX "signed_documents_user_idx" ON "signed_documents" USING btree ("tenant_id","user_id","id");--> statement-breakpoint
CREATE INDEX "signed_documents_document_idx" ON "signed_documents" USING btree ("tenant_id","document_id");--> statement-breakpoint
CREATE INDEX "tenant_documents_blob_idx" ON "tenant_documents" USING btree ("blob_key");--> statement-breakpoint
CREATE INDEX "user_documents_tenant_user_idx" ON "user_documents" USING btree ("tenant_id","user_id","id");--> statement-breakpoint
CREATE INDEX "user_documents_blob_idx" ON "user_documents" USING btree ("blob_key");