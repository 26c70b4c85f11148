-- lg.inc_beta: function (schema/views: re-created by lgctl db migrate; see schema/README.md)
-- The regularized incomplete beta function I_x(a, b), with y = 1 - x given by the caller so that
-- neither end loses digits (t_cdf has both exactly). The continued fraction of I_x(a, b)
-- (converges fast for x < (a + 1) / (a + b + 2); otherwise 1 - I_y(b, a)), evaluated
-- front to back by the modified Lentz method.
CREATE OR REPLACE FUNCTION lg.inc_beta(x float8, y float8, a float8, b float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    tiny CONSTANT float8 := 1e-300;
    flip boolean := false;
    t float8;
    front float8;
    f float8 := 1;
    c float8 := 1;
    d float8 := 0;
    aj float8;
    m integer;
    j integer;
    delta float8;
    lf float8;
BEGIN
    IF x <= 0 THEN
        RETURN 0;
    ELSIF y <= 0 THEN
        RETURN 1;
    END IF;
    IF x >= (a + 1) / (a + b + 2) THEN
        flip := true;
        t := x; x := y; y := t;
        t := a; a := b; b := t;
    END IF;
    lf := a * ln(x) + b * ln(y) + lg.ln_gamma(a + b) - lg.ln_gamma(a) - lg.ln_gamma(b);
    -- a front term under the smallest double: I_x is 0 (1 flipped) in double precision, and
    -- exp() would raise "underflow" (a t of 500 at 959 degrees of freedom: a clear difference
    -- between many repeats made compare fail)
    IF lf < -700 THEN
        RETURN CASE WHEN flip THEN 1 ELSE 0 END;
    END IF;
    front := exp(lf) / a;
    FOR j IN 1..1000 LOOP
        m := j / 2;
        IF j % 2 = 1 THEN
            aj := -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        ELSE
            aj := m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        END IF;
        d := 1 + aj * d;
        IF abs(d) < tiny THEN d := tiny; END IF;
        d := 1 / d;
        c := 1 + aj / c;
        IF abs(c) < tiny THEN c := tiny; END IF;
        delta := c * d;
        f := f * delta;
        EXIT WHEN abs(delta - 1) < 1e-15;
    END LOOP;
    RETURN CASE WHEN flip THEN 1 - front / f ELSE front / f END;
END $$;
