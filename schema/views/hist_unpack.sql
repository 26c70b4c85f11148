-- lg.hist_unpack: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- 011_compact_hist: an interval sample's latency histogram is kept compact. As sparse jsonb a
-- 300-bucket sample took about 3 KiB of table and COPY text; as bytea it takes about a third:
-- a version byte (1), then for each non-empty bucket, in increasing order, one unsigned LEB128
-- varint of count << 3 | g, where g is the gap since the previous non-empty bucket (the first:
-- its index) when under 7; at 7 a second varint holds the gap minus 7 (what lg_hist_pack in
-- core/lg_stats.c writes). lg.hist_unpack() gives (bucket, count) rows back,
-- lg.hist_json() the former sparse {"bucket": count} object; lg.v_sample_all shows that, so
-- readers see what they saw before. Final results keep their jsonb histogram (one row a run).
CREATE OR REPLACE FUNCTION lg.hist_unpack(h bytea) RETURNS TABLE (bucket integer, count bigint)
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    n integer := length(h);
    i integer := 1;
    b integer := -1;
    v bigint;
    s integer;
    x integer;
    k integer;
    g integer;
BEGIN
    IF n = 0 OR get_byte(h, 0) <> 1 THEN
        RAISE EXCEPTION 'not an lg histogram (version byte %)',
            CASE WHEN n > 0 THEN get_byte(h, 0) END;
    END IF;
    WHILE i < n LOOP
        g := -1;
        FOR k IN 1..2 LOOP
            EXIT WHEN k = 2 AND g < 7;
            v := 0;
            s := 0;
            LOOP
                IF i >= n THEN
                    RAISE EXCEPTION 'truncated lg histogram';
                END IF;
                x := get_byte(h, i);
                i := i + 1;
                v := v | ((x & 127)::bigint << s);
                s := s + 7;
                EXIT WHEN x < 128;
            END LOOP;
            IF k = 1 THEN
                g := (v & 7)::integer;
                count := v >> 3;
            ELSE
                g := 7 + v::integer;
            END IF;
        END LOOP;
        b := b + 1 + g;
        bucket := b;
        RETURN NEXT;
    END LOOP;
END $$;
