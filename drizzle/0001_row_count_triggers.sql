-- Per-tenant row counts kept by statement-level triggers, so list totals stay O(1)
-- at a million rows per tenant. A table opts in with the two triggers below.
CREATE FUNCTION bastion_count_rows_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO row_counts (tenant_id, relation, n)
    SELECT tenant_id, TG_TABLE_NAME, count(*) FROM new_rows GROUP BY tenant_id
  ON CONFLICT (tenant_id, relation) DO UPDATE SET n = row_counts.n + EXCLUDED.n;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION bastion_count_rows_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE row_counts rc SET n = rc.n - d.cnt
    FROM (SELECT tenant_id, count(*) AS cnt FROM old_rows GROUP BY tenant_id) d
   WHERE rc.tenant_id = d.tenant_id AND rc.relation = TG_TABLE_NAME;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER users_count_inserted AFTER INSERT ON users
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bastion_count_rows_inserted();
--> statement-breakpoint
CREATE TRIGGER users_count_deleted AFTER DELETE ON users
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bastion_count_rows_deleted();
