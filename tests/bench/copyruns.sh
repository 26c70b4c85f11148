# shellcheck shell=bash
# copyruns.sh: what the scale benches source to grow a database from a real campaign. Needs q
# (lib.sh) on the database.

# copy_runs FROM TO K: K copies of every run of campaign FROM (by name) added to campaign TO
# (by name; made as a copy of FROM's row when there is none), with every row that names a run:
# samples, results, agents' rows, telemetry, reductions... (the fio JSON left out: 34 KB a run
# and agent that no command reads in bulk). Copies get new run ids and ordinals after TO's.
copy_runs() {
    q "DO \$\$
DECLARE t record; cols text; sel text; maxord integer; src bigint; dst bigint;
BEGIN
  SELECT campaign_id INTO src FROM lg.campaign WHERE name = '$1' ORDER BY campaign_id DESC LIMIT 1;
  SELECT campaign_id INTO dst FROM lg.campaign WHERE name = '$2' ORDER BY campaign_id DESC LIMIT 1;
  IF dst IS NULL THEN
    SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position),
           string_agg(CASE WHEN column_name = 'name' THEN quote_literal('$2')
                           WHEN column_name = 'submit_id' THEN 'NULL'
                           ELSE 'x.' || quote_ident(column_name) END, ', '
                      ORDER BY ordinal_position)
      INTO cols, sel FROM information_schema.columns
      WHERE table_schema = 'lg' AND table_name = 'campaign' AND is_generated = 'NEVER'
        AND column_name <> 'campaign_id';
    EXECUTE format('INSERT INTO lg.campaign (%s) SELECT %s FROM lg.campaign x'
                   ' WHERE x.campaign_id = %s RETURNING campaign_id', cols, sel, src) INTO dst;
  END IF;
  SELECT coalesce(max(ordinal), 0) INTO maxord FROM lg.run WHERE campaign_id = dst;
  CREATE TEMP TABLE m ON COMMIT DROP AS
    SELECT r.run_id AS old_id, nextval(pg_get_serial_sequence('lg.run', 'run_id')) AS new_id,
           maxord + (k - 1) * (SELECT max(ordinal) FROM lg.run WHERE campaign_id = src) AS base
    FROM lg.run r, generate_series(1, $3) k WHERE r.campaign_id = src;
  FOR t IN SELECT c.table_name FROM information_schema.columns c
           JOIN information_schema.tables x USING (table_schema, table_name)
           WHERE c.table_schema = 'lg' AND c.column_name = 'run_id' AND x.table_type = 'BASE TABLE'
             -- (lg.sample's partitions, 036: their rows go through lg.sample)
             AND NOT EXISTS (SELECT 1 FROM pg_inherits i
                             WHERE i.inhrelid = format('lg.%I', c.table_name)::regclass)
           ORDER BY c.table_name <> 'run', c.table_name LOOP
    SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position),
           string_agg(CASE WHEN column_name = 'run_id' THEN 'm.new_id'
                           WHEN t.table_name = 'run' AND column_name = 'ordinal'
                             THEN 'x.ordinal + m.base'
                           WHEN t.table_name = 'run' AND column_name = 'campaign_id'
                             THEN dst::text
                           WHEN column_name = 'fio_json' THEN 'NULL'
                           ELSE 'x.' || quote_ident(column_name) END, ', '
                      ORDER BY ordinal_position)
      INTO cols, sel
      FROM information_schema.columns
      WHERE table_schema = 'lg' AND table_name = t.table_name AND is_generated = 'NEVER'
        AND (column_default IS NULL OR column_default NOT LIKE 'nextval%' OR column_name = 'run_id');
    EXECUTE format('INSERT INTO lg.%I (%s) SELECT %s FROM lg.%I x JOIN m ON m.old_id = x.run_id',
                   t.table_name, cols, sel, t.table_name);
  END LOOP;
END \$\$" >/dev/null
}
