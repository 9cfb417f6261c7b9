DROP INDEX "idp_login_states_expires_idx";--> statement-breakpoint
CREATE INDEX "idp_login_states_tenant_expires_idx" ON "idp_login_states" USING btree ("tenant_id","expires_at");