-- Data step: custody-b has a kind of its own (its port is not custody's). Its secrets were sealed
-- under the former kind's context: they are carried over sealed together as the one entry `*`
-- of legacy_secrets; the first read opens them (ProviderSpec.legacyContext) and seals them again.
UPDATE "provider_settings"
SET "kind" = 'custody-b',
    "legacy_secrets" = CASE WHEN "secrets_sealed" IS NULL THEN "legacy_secrets" ELSE jsonb_build_object('*', "secrets_sealed") END,
    "secrets_sealed" = NULL,
    "version" = "version" + 1
WHERE "kind" = 'custody' AND "provider" = 'custody-b';--> statement-breakpoint
-- Data step: the tenants' external identity providers move from idp_configs into provider_settings
-- (kind idp, provider oidc): the issuer is the base URL and, exactly as given, the `issuer`
-- setting; the client secret is carried over sealed under its former context.
INSERT INTO "provider_settings" ("tenant_id", "kind", "provider", "base_url", "settings", "secrets_sealed", "legacy_secrets", "created_at", "updated_at")
SELECT "tenant_id", 'idp', 'oidc', "issuer",
       jsonb_build_object(
         'issuer', "issuer",
         'client-id', "client_id",
         'scopes', "scopes",
         'redirect-allow', COALESCE((SELECT string_agg(e.value, ' ' ORDER BY e.ordinality) FROM jsonb_array_elements_text("redirect_allow") WITH ORDINALITY AS e(value, ordinality)), '')
       ),
       NULL, jsonb_build_object('client-secret', "client_secret_sealed"), "created_at", "updated_at"
FROM "idp_configs"
ON CONFLICT DO NOTHING;--> statement-breakpoint
DROP TABLE "idp_configs" CASCADE;
