-- lg.hist_varint: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
CREATE OR REPLACE FUNCTION lg.hist_varint(v bigint) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    out bytea := '';
    b integer;
BEGIN
    LOOP
        b := (v & 127)::integer;
        v := v >> 7;
        IF v > 0 THEN
            b := b | 128;
        END IF;
        out := out || set_byte('\x00'::bytea, 0, b);
        EXIT WHEN v = 0;
    END LOOP;
    RETURN out;
END $$;
