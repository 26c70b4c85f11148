-- 009_refresh_writer: lg.refresh_views() drops and recreates the publishing views with its
-- owner's rights; only writers (the controller, imports) may call it. PostgreSQL grants EXECUTE
-- on new functions to PUBLIC, which made it callable by lg_reader.
REVOKE EXECUTE ON FUNCTION lg.refresh_views() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION lg.refresh_views() TO lg_writer;
