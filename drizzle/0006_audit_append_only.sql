-- audit_events is append-only in the database itself: UPDATE, DELETE and TRUNCATE raise,
-- whatever the application (or an operator at a SQL prompt) attempts. Statement-level
-- triggers, so even a statement touching no row is refused.
CREATE FUNCTION bastion_audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION bastion_audit_events_append_only();
--> statement-breakpoint
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION bastion_audit_events_append_only();
--> statement-breakpoint
-- Unfiltered list totals read row_counts (see 0001_row_count_triggers.sql); rows are never deleted.
CREATE TRIGGER audit_events_count_inserted AFTER INSERT ON audit_events
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bastion_count_rows_inserted();
