-- Data step (hand written, keep before the drops if the migration is regenerated): bank-link's
-- allow-list and own originator become settings of the kind in provider_settings
-- (`redirect-allow`: the entries space-separated; `originator-client-id`), and the
-- business-profile webhook event ids already applied move to inbound_webhooks, so a delivery
-- retried across the upgrade is still a duplicate.
UPDATE "provider_settings" AS p
SET "settings" = p."settings" || jsonb_strip_nulls(jsonb_build_object(
      'redirect-allow', NULLIF(array_to_string(ARRAY(SELECT jsonb_array_elements_text(b."redirect_allow")), ' '), ''),
      'originator-client-id', b."originator_client_id")),
    "version" = p."version" + 1
FROM "bank_link_settings" AS b
WHERE p."tenant_id" = b."tenant_id" AND p."kind" = 'bank-link' AND p."provider" = 'plaid';--> statement-breakpoint
INSERT INTO "provider_settings" ("tenant_id", "kind", "provider", "base_url", "settings", "secrets_sealed", "legacy_secrets", "created_at", "updated_at")
SELECT b."tenant_id", 'bank-link', 'plaid', NULL,
       jsonb_strip_nulls(jsonb_build_object('redirect-allow', NULLIF(array_to_string(ARRAY(SELECT jsonb_array_elements_text(b."redirect_allow")), ' '), ''))),
       NULL, NULL, b."created_at", b."updated_at"
FROM "bank_link_settings" AS b
ON CONFLICT DO NOTHING;--> statement-breakpoint
INSERT INTO "inbound_webhooks" ("tenant_id", "kind", "provider", "event_id", "received_at")
SELECT "tenant_id", 'business-profile', "provider", "event_id", "received_at" FROM "business_profile_events"
ON CONFLICT DO NOTHING;--> statement-breakpoint
DROP TABLE "bank_link_settings" CASCADE;--> statement-breakpoint
DROP TABLE "business_profile_events" CASCADE;
