-- The count triggers spread a (tenant, table) counter over 256 shards instead of 16 (see
-- counters-table.ts): the pool's connections (20 by default) fell on 16 shards by their backend
-- pid, and every two connections sharing a shard waited for each other's commit on its row.
-- Existing shards 0-15 stay and keep counting in the sum; no row moves.
CREATE OR REPLACE FUNCTION bastion_count_rows_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO row_counts (tenant_id, relation, shard, n)
    SELECT tenant_id, TG_TABLE_NAME, pg_backend_pid() % 256, count(*) FROM new_rows GROUP BY tenant_id
  ON CONFLICT (tenant_id, relation, shard) DO UPDATE SET n = row_counts.n + EXCLUDED.n;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION bastion_count_rows_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO row_counts (tenant_id, relation, shard, n)
    SELECT tenant_id, TG_TABLE_NAME, pg_backend_pid() % 256, -count(*) FROM old_rows GROUP BY tenant_id
  ON CONFLICT (tenant_id, relation, shard) DO UPDATE SET n = row_counts.n + EXCLUDED.n;
  RETURN NULL;
END
$$;
