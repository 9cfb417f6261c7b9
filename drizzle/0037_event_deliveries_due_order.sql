DROP INDEX "event_deliveries_due_idx";--> statement-breakpoint
CREATE INDEX "event_deliveries_due_idx" ON "event_deliveries" USING btree ("next_attempt_at","event_seq") WHERE status = 'pending';