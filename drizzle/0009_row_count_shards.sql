ALTER TABLE "row_counts" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "row_counts" DROP CONSTRAINT "row_counts_pkey";
--> statement-breakpoint
ALTER TABLE "row_counts" ADD CONSTRAINT "row_counts_pkey" PRIMARY KEY("tenant_id","relation","shard");--> statement-breakpoint
-- The count triggers add to the shard of the writing backend (see counters-table.ts): one row
-- per (tenant, table) serialized every insert of a tenant on that row until commit.
CREATE OR REPLACE FUNCTION bastion_count_rows_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO row_counts (tenant_id, relation, shard, n)
    SELECT tenant_id, TG_TABLE_NAME, pg_backend_pid() % 16, count(*) FROM new_rows GROUP BY tenant_id
  ON CONFLICT (tenant_id, relation, shard) DO UPDATE SET n = row_counts.n + EXCLUDED.n;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION bastion_count_rows_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO row_counts (tenant_id, relation, shard, n)
    SELECT tenant_id, TG_TABLE_NAME, pg_backend_pid() % 16, -count(*) FROM old_rows GROUP BY tenant_id
  ON CONFLICT (tenant_id, relation, shard) DO UPDATE SET n = row_counts.n + EXCLUDED.n;
  RETURN NULL;
END
$$;
