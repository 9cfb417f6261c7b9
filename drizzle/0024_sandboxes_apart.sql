-- The sandboxes' tables leave the product's schema (issue #27 item 2): they live in the schema
-- "sandbox", created and migrated by drizzle-sandboxes/ only while sandboxes are on. Here each
-- of the 23 leaves public: a table holding rows (a developer's sandbox state, or a database
-- that once ran with SANDBOXES=on) moves to the schema "sandbox" as it is, for the sandbox
-- migrations to keep; an empty one (every production database, every new database) is dropped.
-- No row is deleted: an operator who wants the old sandbox state gone drops the schema.
DO $$
DECLARE
  t text;
  has_rows boolean;
BEGIN
  FOREACH t IN ARRAY ARRAY[
    'bp_a_sandbox_businesses',
    'bank_link_sandbox_clients', 'bank_link_sandbox_items', 'bank_link_sandbox_link_tokens',
    'bank_link_sandbox_originators', 'bank_link_sandbox_public_tokens',
    'bank_link_sandbox_questionnaires', 'bank_link_sandbox_webhook_keys',
    'custody_a_sandbox_clients', 'custody_a_sandbox_keys', 'custody_a_sandbox_transactions',
    'custody_a_sandbox_transfers', 'custody_a_sandbox_vaults', 'custody_a_sandbox_wallets',
    'custody_b_sandbox_challenges', 'custody_b_sandbox_credentials', 'custody_b_sandbox_nonces',
    'custody_b_sandbox_orgs', 'custody_b_sandbox_signatures', 'custody_b_sandbox_tokens',
    'custody_b_sandbox_user_actions', 'custody_b_sandbox_users', 'custody_b_sandbox_wallets'
  ] LOOP
    IF to_regclass(format('public.%I', t)) IS NULL THEN
      CONTINUE;
    END IF;
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM public.%I)', t) INTO has_rows;
    IF has_rows THEN
      CREATE SCHEMA IF NOT EXISTS sandbox;
      EXECUTE format('ALTER TABLE public.%I SET SCHEMA sandbox', t);
    ELSE
      EXECUTE format('DROP TABLE public.%I', t);
    END IF;
  END LOOP;
END $$;
