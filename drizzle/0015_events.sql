CREATE SEQUENCE "public"."outbox_events_position_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "event_deliveries" (
	"tenant_id" uuid NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"event_seq" bigint NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"lease_token" uuid,
	"queued_at" timestamp with time zone NOT NULL,
	"last_attempt_at" timestamp with time zone,
	"last_status" integer,
	"last_error" text,
	"delivered_at" timestamp with time zone,
	CONSTRAINT "event_deliveries_pkey" PRIMARY KEY("tenant_id","endpoint_id","event_id"),
	CONSTRAINT "event_deliveries_status_check" CHECK ("event_deliveries"."status" in ('pending', 'delivered', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "event_endpoints" (
	"tenant_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"url" text NOT NULL,
	"description" text,
	"types" jsonb NOT NULL,
	"secret_sealed" text NOT NULL,
	"previous_secret_sealed" text,
	"previous_secret_expires_at" timestamp with time zone,
	"enabled" boolean NOT NULL,
	"disabled_reason" text,
	"disabled_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "event_endpoints_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "outbox_events" ADD COLUMN "position" bigint;--> statement-breakpoint
ALTER TABLE "event_deliveries" ADD CONSTRAINT "event_deliveries_endpoint_fk" FOREIGN KEY ("tenant_id","endpoint_id") REFERENCES "public"."event_endpoints"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_endpoints" ADD CONSTRAINT "event_endpoints_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "event_deliveries_due_idx" ON "event_deliveries" USING btree ("next_attempt_at") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "event_deliveries_delivered_idx" ON "event_deliveries" USING btree ("delivered_at") WHERE status = 'delivered';--> statement-breakpoint
CREATE INDEX "outbox_events_tenant_position_idx" ON "outbox_events" USING btree ("tenant_id","position") WHERE position is not null;--> statement-breakpoint
CREATE INDEX "outbox_events_tenant_created_idx" ON "outbox_events" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "outbox_events_tenant_id_idx" ON "outbox_events" USING btree ("tenant_id","id");