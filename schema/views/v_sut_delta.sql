-- lg.v_sut_delta: view (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- Each answered scrape's values with the change since the previous answered scrape of the same
-- key: t is the middle of the request, elapsed_s the time since that previous scrape's t.
CREATE VIEW lg.v_sut_delta AS
WITH v AS (
    SELECT s.run_id, s.source, s.seq, s.kind, s.t_send + (s.t_recv - s.t_send) / 2 AS t, k.key,
           u.val
    FROM lg.sut_scrape s
    CROSS JOIN LATERAL unnest(s.series, s.vals) AS u(id, val)
    JOIN lg.sut_series k ON k.series_id = u.id
    WHERE s.t_recv IS NOT NULL)
SELECT run_id, source, seq, kind, t, key, val,
       extract(epoch FROM t - lag(t) OVER w)::float8 AS elapsed_s,
       CASE WHEN lag(val) OVER w IS NULL THEN NULL
            WHEN val >= lag(val) OVER w THEN val - lag(val) OVER w
            ELSE val END AS delta
FROM v
WINDOW w AS (PARTITION BY run_id, source, key ORDER BY seq);
GRANT SELECT ON lg.v_sut_delta TO lg_reader, lg_writer;
