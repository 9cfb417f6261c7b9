ALTER TABLE "xrpl_submissions" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "custody_transactions" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "custody_transactions" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "custody_transfers" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "custody_transfers" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "custody_a_sandbox_transactions" ADD COLUMN "signed_tx" text;--> statement-breakpoint
ALTER TABLE "custody_a_sandbox_transactions" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "custody_a_sandbox_transactions" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "custody_a_sandbox_transfers" ADD COLUMN "signed_tx" text;--> statement-breakpoint
ALTER TABLE "custody_a_sandbox_transfers" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "custody_a_sandbox_transfers" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "custody_b_sandbox_signatures" ADD COLUMN "failure_reason" text;--> statement-breakpoint
ALTER TABLE "custody_b_sandbox_signatures" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "custody_b_sandbox_signatures" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;