ALTER TABLE "inbound_webhooks" ADD COLUMN "raw_body" text;--> statement-breakpoint
-- kyc_webhooks' dedupe job moves to inbound_webhooks. Its rows are carried over so the raw bytes
-- kept for audit stay, and idv-a retries of deliveries received before the upgrade are still
-- known: idv-a's event id is the SHA-256 of the raw body, the digest kyc_webhooks kept. idv-b
-- rows keep the same digest id (its event ids were not stored); a retry of one of those is
-- acknowledged by the state machine as already applied. The outcome and kyc_id columns go.
INSERT INTO "inbound_webhooks" ("tenant_id", "kind", "provider", "event_id", "raw_body", "received_at")
SELECT "tenant_id", 'idv', "provider", 'sha256:' || "digest", "raw_body", "received_at" FROM "kyc_webhooks"
ON CONFLICT DO NOTHING;--> statement-breakpoint
DROP TABLE "kyc_webhooks" CASCADE;
