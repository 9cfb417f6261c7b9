DROP INDEX "users_tenant_evm_eoa_idx";--> statement-breakpoint
DROP INDEX "users_tenant_xrpl_secure_idx";--> statement-breakpoint
CREATE INDEX "users_tenant_evm_eoa_idx" ON "users" USING btree ("tenant_id","evm_eoa") WHERE "users"."evm_eoa" is not null;--> statement-breakpoint
CREATE INDEX "users_tenant_xrpl_secure_idx" ON "users" USING btree ("tenant_id","xrpl_secure_account_address") WHERE "users"."xrpl_secure_account_address" is not null;