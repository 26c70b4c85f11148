-- 027_repeatable: from here on every view and function of lg lives in one file of schema/views
-- and nowhere else. lgctl db migrate re-creates them, in the order of schema/views/order.txt,
-- after the numbered migrations whenever a migration was applied or a file's SHA-256 differs
-- from what public.lg_repeatable records (migrate.c makes that table, as it makes
-- public.lg_migration). The definitions in 001-026 are history that existing databases applied;
-- on a new database they run too, and the files then replace them.
--
-- Readers and writers check that the database is up to date (both tables) before they work,
-- without DDL.
GRANT SELECT ON public.lg_repeatable TO lg_reader, lg_writer;
