ALTER TABLE "provider_settings" ADD COLUMN "legacy_secrets" jsonb;--> statement-breakpoint
-- Data step: the per-provider settings tables move into provider_settings. SQL cannot open
-- sealed secrets, so each is carried over still sealed under its former context, in
-- legacy_secrets; the first read opens it (ProviderSpec.legacyContext) and seals it again.
INSERT INTO "provider_settings" ("tenant_id", "kind", "provider", "base_url", "settings", "secrets_sealed", "legacy_secrets", "created_at", "updated_at")
SELECT "tenant_id", 'idv', "provider", "base_url", jsonb_build_object('client-id', "client_id"), NULL,
       jsonb_build_object('webhook-secret', "webhook_secret_sealed"), "created_at", "updated_at"
FROM "idv_provider_configs"
ON CONFLICT DO NOTHING;--> statement-breakpoint
INSERT INTO "provider_settings" ("tenant_id", "kind", "provider", "base_url", "settings", "secrets_sealed", "legacy_secrets", "created_at", "updated_at")
SELECT "tenant_id", 'business-profile', "provider", "base_url",
       CASE WHEN "base_url" IS NULL THEN jsonb_build_object('api-key-digest', "api_key_digest") ELSE '{}'::jsonb END, NULL,
       jsonb_build_object('api-key', "api_key_sealed", 'webhook-secret', "webhook_secret_sealed"), "created_at", "updated_at"
FROM "business_profile_configs"
ON CONFLICT DO NOTHING;--> statement-breakpoint
INSERT INTO "provider_settings" ("tenant_id", "kind", "provider", "base_url", "settings", "secrets_sealed", "legacy_secrets", "created_at", "updated_at")
SELECT "tenant_id", 'bank-link', 'plaid', "base_url", jsonb_build_object('client-id', "client_id", 'environment', "environment"), NULL,
       jsonb_build_object('secret', "secret_sealed"), "created_at", "updated_at"
FROM "bank_link_settings"
ON CONFLICT DO NOTHING;--> statement-breakpoint
DROP TABLE "idv_provider_configs" CASCADE;--> statement-breakpoint
DROP TABLE "business_profile_configs" CASCADE;--> statement-breakpoint
ALTER TABLE "bank_link_settings" DROP COLUMN "base_url";--> statement-breakpoint
ALTER TABLE "bank_link_settings" DROP COLUMN "environment";--> statement-breakpoint
ALTER TABLE "bank_link_settings" DROP COLUMN "client_id";--> statement-breakpoint
ALTER TABLE "bank_link_settings" DROP COLUMN "secret_sealed";
