-- lg.hist_pack: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
CREATE OR REPLACE FUNCTION lg.hist_pack(j jsonb) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    out bytea := '\x01';
    prev integer := -1;
    r record;
BEGIN
    FOR r IN SELECT key::integer AS k, value::bigint AS c FROM jsonb_each_text(j)
             WHERE value::bigint <> 0 ORDER BY 1 LOOP
        out := out || lg.hist_varint(r.c << 3 | least(r.k - prev - 1, 7));
        IF r.k - prev - 1 >= 7 THEN
            out := out || lg.hist_varint(r.k - prev - 1 - 7);
        END IF;
        prev := r.k;
    END LOOP;
    RETURN out;
END $$;
