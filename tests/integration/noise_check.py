"""noise_check.py: the independent side of it_compare_noise. What lg computes in SQL
(schema/017_compare_noise.sql) is computed here again from the raw figures with scipy:
confidence intervals of means with scipy.stats.t.ppf, Welch's test with
scipy.stats.ttest_ind(equal_var=False) (repeats) or ttest_ind_from_stats (one run: batch means of
its seconds, batched here from the exported lg.sample rows). Each command prints what it checked
and exits 1 on the first difference.

  noise_check.py gen OUT.sql                 synthetic two-agent runs (fixed seed) as SQL
  noise_check.py repeats FIGURES.csv CMP.json [CASES]   imported repeats against lgctl's json
  noise_check.py batches SAMPLES.csv CMP.json RESULTS.csv   single runs against lgctl's json
  noise_check.py plan REPEATS PLAN.txt       the precision line of lgctl plan
"""
import csv
import json
import math
import random
import statistics
import sys

from scipy import stats

REL = 1e-8  # scipy's t.ppf itself is good to about 1e-10


def close(got, want, rel=REL, what="", scale=None):
    """Equal to rel of want, or of scale when want is a difference of terms of that size (an
    interval's end d + h near zero keeps only the absolute error of d and h)."""
    if got is None or want is None:
        if got is not None or want is not None:
            sys.exit(f"FAIL: {what}: got {got}, want {want}")
        return
    size = max(abs(want), abs(scale) if scale is not None else 0.0, 1e-300)
    if abs(got - want) > rel * size and abs(got - want) > 1e-12:
        sys.exit(f"FAIL: {what}: got {got!r}, want {want!r}")


def mean_ci(values):
    """The 95% interval of a mean of repeats: t(0.975, n - 1) s / sqrt(n)."""
    n = len(values)
    m = statistics.fmean(values)
    if n < 2:
        return m, None, None
    h = stats.t.ppf(0.975, n - 1) * statistics.stdev(values) / math.sqrt(n)
    return m, m - h, m + h


def welch_from_se(d, se1, df1, se0, df0):
    """Welch-Satterthwaite df, and the 95% interval of a difference d with these errors."""
    v = se1 ** 2 + se0 ** 2
    df = v ** 2 / (se1 ** 4 / df1 + se0 ** 4 / df0)
    h = stats.t.ppf(0.975, df) * math.sqrt(v)
    return df, d - h, d + h


def verdict(lo, hi, pct, threshold, hib, d):
    if d == 0 or (pct is not None and abs(pct) < threshold) or (lo is not None and lo <= 0 <= hi):
        return "same"
    if lo is None:  # no interval on a side: a difference that was not tested
        return "untested"
    return "better" if (d > 0) == hib else "worse"


def cmd_repeats(fig_csv, cmp_json, threshold=0.0):
    """FIGURES.csv: build,case,profile,direction,metric,value,unit (build a is the baseline)."""
    figs = {}
    with open(fig_csv) as f:
        for r in csv.DictReader(f):
            figs.setdefault((r["metric"], r["case"], r["build"]), []).append(float(r["value"]))
    cmp = json.load(open(cmp_json))
    checked = 0
    for row in cmp["rows"]:
        metric, case, hib = row["metric"], row["labels"]["case"], row["higher_is_better"]
        a = figs[(metric, case, "a")]
        for build, cell in row["cells"].items():
            vals = figs[(metric, case, build)]
            m, lo, hi = mean_ci(vals)
            what = f"{metric} {case} build={build}"
            close(cell["value"], m, 1e-12, what + " mean")
            close(cell["ci_low"], lo, REL, what + " ci_low")
            close(cell["ci_high"], hi, REL, what + " ci_high")
            if build == "a":
                continue
            ma = statistics.fmean(a)
            pct = (m - ma) / ma * 100
            if len(vals) >= 2 and len(a) >= 2:
                t = stats.ttest_ind(vals, a, equal_var=False)
                df, dlo, dhi = welch_from_se(m - ma, statistics.stdev(vals) / math.sqrt(len(vals)),
                                             len(vals) - 1,
                                             statistics.stdev(a) / math.sqrt(len(a)), len(a) - 1)
                close(cell["p_value"], t.pvalue, 1e-9, what + " p_value")
                size = (abs(m - ma) + (dhi - dlo) / 2) / abs(ma) * 100
                close(cell["diff_ci_low_pct"], dlo / ma * 100, REL, what + " diff_ci_low_pct", size)
                close(cell["diff_ci_high_pct"], dhi / ma * 100, REL, what + " diff_ci_high_pct",
                      size)
                want = verdict(dlo, dhi, pct, threshold, hib, m - ma)
                print(f"ok: {what}: {pct:+.2f}%, 95% CI {dlo / ma * 100:+.3f}% to "
                      f"{dhi / ma * 100:+.3f}%, Welch df {df:.4f}, p {t.pvalue:.6g} "
                      f"(scipy), lg p {cell['p_value']:.6g}: {want}")
            else:  # one side has no interval: not tested
                close(cell["p_value"], None, what=what + " p_value")
                want = verdict(None, None, pct, threshold, hib, m - ma)
                print(f"ok: {what}: {pct:+.2f}%, one side without an interval: not tested, {want}")
            if cell["status"] != want:
                sys.exit(f"FAIL: {what}: status {cell['status']}, want {want}")
            if cell["change"] != ("~" if want == "same" else f"{pct:+.1f}%"):
                sys.exit(f"FAIL: {what}: change {cell['change']}")
            checked += 1
    print(f"ok: {checked} differences and every interval equal scipy's")


def batches(series):
    """The batch means rule of lg.batch_means: k = min(10, N // 2) batches of N // k seconds,
    the first N - k * b left out; None under 5 batches."""
    n = len(series)
    k = min(10, n // 2)
    if k < 5:
        return None
    b = n // k
    skip = n - k * b
    return [series[skip + j * b: skip + (j + 1) * b] for j in range(k)]


def cmd_batches(samples_csv, cmp_json, results_csv):
    """SAMPLES.csv: run_id,agent_id,seq,direction,interval_ms,ios,bytes,lat_n,lat_sum;
    RESULTS.csv: run_id,direction,build,metric,value (the figures lgctl compares)."""
    per = {}  # (run, direction) -> seq -> [rows]
    with open(samples_csv) as f:
        for r in csv.DictReader(f):
            if int(r["interval_ms"]) <= 0:
                continue
            per.setdefault((r["run_id"], r["direction"]), {}).setdefault(int(r["seq"]), []).append(r)
    noise = {}  # (run, direction, metric) -> (se, df, k)
    for key, seqs in per.items():
        agents = max(len(v) for v in seqs.values())
        whole = [seqs[s] for s in sorted(seqs) if len(seqs[s]) == agents]
        series = {
            "iops": [sum(int(x["ios"]) * 1000 / int(x["interval_ms"]) for x in sec) for sec in whole],
            "mbps": [sum(int(x["bytes"]) * 1000 / int(x["interval_ms"]) for x in sec) / 1e6
                     for sec in whole],
        }
        for metric in ("iops", "mbps"):
            bs = batches(series[metric])
            if bs:
                means = [statistics.fmean(b) for b in bs]
                noise[key + (metric,)] = (statistics.stdev(means) / math.sqrt(len(means)),
                                          len(means) - 1, len(means))
        bs = batches(whole)
        if bs:
            means = [sum(float(x["lat_sum"]) for sec in b for x in sec) /
                     sum(int(x["lat_n"]) for sec in b for x in sec) / 1e6 for b in bs]
            noise[key + ("lat_avg_ms",)] = (statistics.stdev(means) / math.sqrt(len(means)),
                                            len(means) - 1, len(means))
    runs = {}
    with open(results_csv) as f:
        for r in csv.DictReader(f):
            runs[(r["metric"], r["build"], r["direction"])] = (r["run_id"], float(r["value"]))
    cmp = json.load(open(cmp_json))
    checked = 0
    for row in cmp["rows"]:
        metric, direction, hib = row["metric"], row["direction"], row["higher_is_better"]
        base = cmp["baseline"]
        rid0, v0 = runs[(metric, base, direction)]
        n0 = noise.get((rid0, direction, metric))
        for build, cell in row["cells"].items():
            rid, v = runs[(metric, build, direction)]
            nz = noise.get((rid, direction, metric))
            what = f"{metric} {direction} build={build} (run {rid})"
            close(cell["value"], v, 1e-12, what + " value")
            if nz is None:
                close(cell["ci_low"], None, what=what + " ci_low")
                if cell["ci_method"] is not None:
                    sys.exit(f"FAIL: {what}: ci_method {cell['ci_method']}, want none")
            else:
                h = stats.t.ppf(0.975, nz[1]) * nz[0]
                close(cell["ci_low"], v - h, REL, what + " ci_low")
                close(cell["ci_high"], v + h, REL, what + " ci_high")
                if cell["ci_method"] != "batch means":
                    sys.exit(f"FAIL: {what}: ci_method {cell['ci_method']}")
                print(f"ok: {what}: {v:.6g} \u00b1{h:.6g} from {nz[2]} batch means")
            checked += 1
            if build == base:
                continue
            pct = (v - v0) / v0 * 100
            if nz is None or n0 is None:
                close(cell["p_value"], None, what=what + " p_value")
                want = verdict(None, None, pct, 0, hib, v - v0)
            else:
                t = stats.ttest_ind_from_stats(v, nz[0] * math.sqrt(nz[2]), nz[2],
                                               v0, n0[0] * math.sqrt(n0[2]), n0[2],
                                               equal_var=False)
                df, dlo, dhi = welch_from_se(v - v0, nz[0], nz[1], n0[0], n0[1])
                close(cell["p_value"], t.pvalue, 1e-9, what + " p_value")
                size = (abs(v - v0) + (dhi - dlo) / 2) / abs(v0) * 100
                close(cell["diff_ci_low_pct"], dlo / v0 * 100, REL, what + " diff_ci_low_pct", size)
                close(cell["diff_ci_high_pct"], dhi / v0 * 100, REL, what + " diff_ci_high_pct",
                      size)
                want = verdict(dlo, dhi, pct, 0, hib, v - v0)
                print(f"ok: {what}: {pct:+.2f}% against {base}, 95% CI {dlo / v0 * 100:+.2f}% to "
                      f"{dhi / v0 * 100:+.2f}%, Welch df {df:.3f}, p {t.pvalue:.4g}: {want}")
            if cell["status"] != want:
                sys.exit(f"FAIL: {what}: status {cell['status']}, want {want}")
    print(f"ok: {checked} single-run figures: batch-means intervals and tests equal scipy's")


def cmd_gen(out_sql):
    """Three single runs of two agents each, 32 s of samples (the second agent misses the first),
    AR(1) noise (phi 0.8, about 3.5% a second, centred): s1; s2 2.3% lower (within the noise of
    its 10 batch means, though a naive test of the seconds would call it worse); s3 10% lower
    with a tenth of the noise."""
    rnd = random.Random(18)
    lines = [
        "INSERT INTO lg.agent (name) VALUES ('syn-a'), ('syn-b');",
        "INSERT INTO lg.campaign (name, spec, state) VALUES ('synthetic', '-', 'done');",
    ]
    naive = {}
    for i, (build, shift, noise) in enumerate([("s1", 1.0, 0.035), ("s2", 0.977, 0.035),
                                                ("s3", 0.90, 0.004)]):
        lines.append(f"INSERT INTO lg.sut_config (labels) VALUES ('{{\"build\": \"{build}\"}}') "
                     "ON CONFLICT DO NOTHING;")
        lines.append(
            "INSERT INTO lg.run (campaign_id, ordinal, sut_config_id, profile, direction, rw, bs,"
            " read_pct, threads, qd, ramp_s, runtime_s, target_kind, target, size_bytes, direct,"
            f" state) SELECT c.campaign_id, {i + 1}, s.sut_config_id, 'r4k', 'read', 'randread',"
            " 4096, 100, 1, 2, 0, 32, 'file', '/x', 1048576, true, 'done' FROM lg.campaign c,"
            f" lg.sut_config s WHERE c.name = 'synthetic'"
            f" AND s.labels = '{{\"build\": \"{build}\"}}'::jsonb;")
        run = f"(SELECT run_id FROM lg.run r JOIN lg.campaign c USING (campaign_id) " \
              f"WHERE c.name = 'synthetic' AND r.ordinal = {i + 1})"
        tot_ios = tot_bytes = tot_lat = 0
        tot_ms = 0
        path = [0.0]
        for _ in range(32):
            path.append(0.8 * path[-1] + rnd.gauss(0, noise * math.sqrt(1 - 0.8 ** 2)))
        # centred on the seconds both agents have, so the runs differ by exactly their shift
        centre = statistics.fmean(path[2:])
        rates = []
        for seq in range(1, 33):
            x = path[seq] - centre
            lat_ns = 70000 / (shift * (1 + x))
            merged = 0.0
            for agent in ("syn-a", "syn-b"):
                if agent == "syn-b" and seq == 1:
                    continue
                ms = 1000 + rnd.randint(-20, 20)
                ios = int(round(5000 * shift * (1 + x) * ms / 1000 * (1 + rnd.gauss(0, 0.002))))
                merged += ios * 1000 / ms
                lat_sum = ios * lat_ns
                lines.append(
                    "INSERT INTO lg.sample (run_id, agent_id, seq, direction, t_ms, interval_ms,"
                    " ios, bytes, lat_n, lat_sum, lat_sumsq, lat_min, lat_max) SELECT "
                    f"{run}, agent_id, {seq}, 'read', {1000 * seq}, {ms}, {ios}, {ios * 4096},"
                    f" {ios}, {lat_sum!r}, 0, 1, 1 FROM lg.agent WHERE name = '{agent}';")
                if seq > 1:
                    tot_ios += ios
                    tot_bytes += ios * 4096
                    tot_lat += lat_sum
                    tot_ms += ms / 2
            if seq > 1:
                rates.append(merged)
        iops = tot_ios * 1000 / tot_ms
        lines.append(
            "INSERT INTO lg.result (run_id, agent_id, direction, ios, bytes, runtime_ms, iops,"
            " bw_bytes, lat_n, lat_min, lat_max, lat_mean, lat_stddev, lat_sum, lat_sumsq) VALUES"
            f" ({run}, NULL, 'read', {tot_ios}, {tot_bytes}, {int(tot_ms)}, {iops!r},"
            f" {iops * 4096!r}, {tot_ios}, 1, 1, {tot_lat / tot_ios!r}, 0, {tot_lat!r}, 0);")
        naive[build] = rates
    with open(out_sql, "w") as f:
        f.write("\n".join(lines) + "\n")
    # What a test of the seconds as if independent would say of s2 against s1.
    t = stats.ttest_ind(naive["s2"], naive["s1"], equal_var=False)
    print(f"naive Welch test of the seconds, s2 against s1: "
          f"{(statistics.fmean(naive['s2']) / statistics.fmean(naive['s1']) - 1) * 100:+.2f}%,"
          f" p {t.pvalue:.4g}")
    if t.pvalue >= 0.05:
        sys.exit("FAIL: the synthetic data does not show what batch means are for")


def cmd_plan(repeats, plan_txt):
    line = next(l for l in open(plan_txt) if l.startswith("precision:"))
    r = int(repeats)
    t1 = stats.t.ppf(0.975, r - 1)
    diff = stats.t.ppf(0.975, 2 * (r - 1)) * math.sqrt(2 / r)
    want = (f"precision: repeats {r}: a mean's 95% CI is \u00b1{t1 / math.sqrt(r):.2f} sd "
            f"(t(0.975, {r - 1}) = {t1:.3f}, / \u221a{r})")
    if not line.startswith(want) or f"under about {diff:.2f} sd ({2 * diff:.1f}%" not in line:
        sys.exit(f"FAIL: plan: {line.strip()!r}; want {want!r} ... {diff:.2f} sd")
    print(f"ok: plan, repeats {r}: t(0.975, {r - 1}) = {t1:.6f} (scipy), \u00b1{t1 / math.sqrt(r):.4f}"
          f" sd, differences under {diff:.4f} sd compare as ~")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "gen":
        cmd_gen(*args)
    elif cmd == "repeats":
        cmd_repeats(args[0], args[1], float(args[2]) if len(args) > 2 else 0.0)
    elif cmd == "batches":
        cmd_batches(*args)
    elif cmd == "plan":
        cmd_plan(*args)
    else:
        sys.exit(f"unknown command {cmd}")
