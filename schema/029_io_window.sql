-- 029_io_window: when each agent's measured I/O began and ended (after the ramp, and after the
-- engine's logins, which lie before fio's epoch), in the controller's clock, from fio's reports
-- (core/lg_iowin.h). lg.v_run_window spans them; rows without them (older agents, imports) keep
-- fio's start plus the ramp.
ALTER TABLE lg.run_agent ADD COLUMN io_start_us bigint, ADD COLUMN io_end_us bigint;
