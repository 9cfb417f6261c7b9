CREATE TABLE "business_profile_configs" (
	"tenant_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"base_url" text,
	"api_key_sealed" text NOT NULL,
	"api_key_digest" text NOT NULL,
	"webhook_secret_sealed" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "business_profile_configs_pkey" PRIMARY KEY("tenant_id","provider")
);
--> statement-breakpoint
CREATE TABLE "business_profile_events" (
	"tenant_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"event_id" text NOT NULL,
	"profile_id" uuid,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	CONSTRAINT "business_profile_events_pkey" PRIMARY KEY("tenant_id","provider","event_id")
);
--> statement-breakpoint
CREATE TABLE "business_profiles" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"entity_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"provider_business_id" text,
	"status" text NOT NULL,
	"tasks" jsonb NOT NULL,
	"tin_sealed" text NOT NULL,
	"tin_last4" text NOT NULL,
	"failure" text,
	"submitted_by" text,
	"provider_updated_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "business_profiles_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "entities" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"legal_name" text NOT NULL,
	"type" text NOT NULL,
	"jurisdiction" text NOT NULL,
	"registration_number" text NOT NULL,
	"lei" text,
	"address" jsonb NOT NULL,
	"metadata" jsonb NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "entities_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "entity_member_permissions" (
	"tenant_id" uuid NOT NULL,
	"entity_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"permission" text NOT NULL,
	"granted_by" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "entity_member_permissions_pkey" PRIMARY KEY("tenant_id","entity_id","user_id","permission")
);
--> statement-breakpoint
CREATE TABLE "entity_members" (
	"tenant_id" uuid NOT NULL,
	"entity_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"added_by" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "entity_members_pkey" PRIMARY KEY("tenant_id","entity_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "entity_payment_methods" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"entity_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"label" text,
	"currency" text NOT NULL,
	"details" jsonb NOT NULL,
	"sensitive_sealed" text,
	"sensitive_last4" jsonb NOT NULL,
	"archived" boolean DEFAULT false NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "entity_payment_methods_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "bp_a_sandbox_businesses" (
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
ALTER TABLE "business_profile_configs" ADD CONSTRAINT "business_profile_configs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "business_profile_events" ADD CONSTRAINT "business_profile_events_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "business_profiles" ADD CONSTRAINT "business_profiles_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "business_profiles" ADD CONSTRAINT "business_profiles_entity_fk" FOREIGN KEY ("tenant_id","entity_id") REFERENCES "public"."entities"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entities" ADD CONSTRAINT "entities_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_member_permissions" ADD CONSTRAINT "entity_member_permissions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_member_permissions" ADD CONSTRAINT "entity_member_permissions_member_fk" FOREIGN KEY ("tenant_id","entity_id","user_id") REFERENCES "public"."entity_members"("tenant_id","entity_id","user_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_members" ADD CONSTRAINT "entity_members_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_members" ADD CONSTRAINT "entity_members_entity_fk" FOREIGN KEY ("tenant_id","entity_id") REFERENCES "public"."entities"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_members" ADD CONSTRAINT "entity_members_user_fk" FOREIGN KEY ("tenant_id","user_id") REFERENCES "public"."users"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_payment_methods" ADD CONSTRAINT "entity_payment_methods_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entity_payment_methods" ADD CONSTRAINT "entity_payment_methods_entity_fk" FOREIGN KEY ("tenant_id","entity_id") REFERENCES "public"."entities"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "business_profile_configs_sandbox_key_unique" ON "business_profile_configs" USING btree ("api_key_digest") WHERE "business_profile_configs"."base_url" is null;--> statement-breakpoint
CREATE INDEX "business_profiles_tenant_entity_idx" ON "business_profiles" USING btree ("tenant_id","entity_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "business_profiles_live_unique" ON "business_profiles" USING btree ("tenant_id","entity_id","provider") WHERE "business_profiles"."status" in ('submitting', 'pending', 'in_review', 'approved');--> statement-breakpoint
CREATE UNIQUE INDEX "entities_tenant_lei_unique" ON "entities" USING btree ("tenant_id","lei") WHERE "entities"."lei" is not null;--> statement-breakpoint
CREATE INDEX "entity_members_tenant_user_idx" ON "entity_members" USING btree ("tenant_id","user_id","entity_id");--> statement-breakpoint
CREATE INDEX "entity_payment_methods_tenant_entity_idx" ON "entity_payment_methods" USING btree ("tenant_id","entity_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "bp_a_sandbox_businesses_external_unique" ON "bp_a_sandbox_businesses" USING btree ("tenant_id","external_id");--> statement-breakpoint
CREATE INDEX "bp_a_sandbox_businesses_id_idx" ON "bp_a_sandbox_businesses" USING btree ("id");