#!/usr/bin/env python3
"""t975_fit.py: the polynomial of schema/views/t_quantile.sql, made again.

Student's t 0.975-quantile as a function of u = 1/df is smooth on [0, 1/3] (df from 3 to
infinity), so one polynomial in u holds it to the last bit of a double: a Chebyshev fit of
degree 17 to the quantile computed at 40 digits (mpmath: the regularized incomplete beta and a
root finder). This prints the coefficients, highest power first, and the largest difference of
the polynomial evaluated in doubles (Horner, as the SQL does) from the 40-digit quantile on 2,001
points of [0, 1/3]. Needs python3-mpmath (Debian); a tool for the schema's author, not the build.
usage: schema/t975_fit.py [N_COEFFICIENTS]   (18)
"""
import sys

import mpmath as mp

mp.mp.dps = 40
P = mp.mpf("0.975")


def quantile(df):
    df = mp.mpf(df)

    def f(t):
        return 1 - mp.betainc(df / 2, mp.mpf(1) / 2, 0, df / (df + t * t), regularized=True) / 2 - P

    z = mp.sqrt(2) * mp.erfinv(2 * P - 1)
    return mp.findroot(f, z + (z**3 + z) / (4 * df))


def g(u):
    return mp.sqrt(2) * mp.erfinv(2 * P - 1) if u == 0 else quantile(1 / u)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 18
    umax = mp.mpf(1) / 3
    poly, err = mp.chebyfit(g, [0, umax], n, error=True)
    cs = [float(c) for c in poly]

    def horner(u):
        r = 0.0
        for c in cs:
            r = r * u + c
        return r

    worst = max(abs(horner(float(umax) * k / 2000) - float(g(mp.mpf(float(umax) * k / 2000))))
                for k in range(2001))
    print("-- %d coefficients, highest power first; fit %s, in doubles %.2g at most"
          % (n, mp.nstr(err, 3), worst))
    print(",\n".join(repr(c) for c in cs))


if __name__ == "__main__":
    main()
