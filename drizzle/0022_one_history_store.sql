-- One history store: the histories of KYC attempts and accreditation claims move into the
-- append-only audit_events, tagged with the object they belong to (object_type, object_id).
-- Hand-written data step between the generated statements; keep it if this file is regenerated.
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_actor_type_check";--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "object_type" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "object_id" uuid;--> statement-breakpoint
CREATE INDEX "audit_events_object_idx" ON "audit_events" USING btree ("tenant_id","object_type","object_id","id") WHERE "audit_events"."object_id" is not null;--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_actor_type_check" CHECK ("audit_events"."actor_type" in ('user', 'api_key', 'system', 'anonymous', 'provider'));--> statement-breakpoint
INSERT INTO "audit_events" ("tenant_id", "id", "type", "actor_type", "actor_id", "subject_user_id", "object_type", "object_id", "details", "created_at")
SELECT a."tenant_id", a."id", 'kyc.' || a."action",
       CASE a."actor_type" WHEN 'apiKey' THEN 'api_key' WHEN 'user' THEN 'user' WHEN 'provider' THEN 'provider' ELSE 'system' END,
       a."actor_id", k."user_id", 'kyc', a."kyc_id",
       jsonb_build_object('from', a."from_status", 'to', a."to_status", 'changes', a."changes", 'reason', a."reason"),
       a."created_at"
FROM "kyc_audit" a LEFT JOIN "kyc_records" k ON k."tenant_id" = a."tenant_id" AND k."id" = a."kyc_id";--> statement-breakpoint
INSERT INTO "audit_events" ("tenant_id", "id", "type", "actor_type", "actor_id", "subject_user_id", "object_type", "object_id", "details", "created_at")
SELECT a."tenant_id", a."id", 'accreditation.transition',
       CASE a."actor_type" WHEN 'apiKey' THEN 'api_key' WHEN 'user' THEN 'user' WHEN 'provider' THEN 'provider' ELSE 'system' END,
       a."actor_id", c."user_id", 'accreditation', a."accreditation_id",
       jsonb_build_object('from', a."from_status", 'to', a."to_status", 'reason', a."reason"),
       a."created_at"
FROM "accreditation_audit" a LEFT JOIN "accreditations" c ON c."tenant_id" = a."tenant_id" AND c."id" = a."accreditation_id";--> statement-breakpoint
DROP TABLE "kyc_audit" CASCADE;--> statement-breakpoint
DROP TABLE "accreditation_audit" CASCADE;
