#!/usr/bin/env python3
"""sample_agree.py: the checks of it_sample_agree.sh on per-second figures.

  sample_agree.py samples FILE BS INFLIGHT
      FILE: lines "label seq interval_ms ios bytes lat_n last" from lg.sample (last: 1 on a run's
      last sample). Every sample's ios, bytes / BS and lat_n must agree within 1%, or within
      INFLIGHT I/Os when that is more (it_sample_agree gives 0: lg's samples count the I/Os
      completed in them, as bytes and lat_n do; fio's total_ios counts them issued, ahead by those
      in flight, and the fio check below allows for that), and every sample but a run's
      last must span at most 1.5 s (fio reports each second; the last one ends at fio's final
      report, after the jobs have closed their files).
  sample_agree.py fio STREAM LOGPREFIX BS INFLIGHT
      STREAM: fio's --status-interval=1 --output-format=json+ output; LOGPREFIX: its
      write_lat_log with log_unix_epoch=1 and no averaging (a line per I/O, at its completion).
      The per-interval deltas of the status reports (total_ios, io_bytes, lat_ns.N of reads over
      the jobs) must agree as above, come at most 1.5 s apart, and hold the I/Os and bytes that
      the log says completed between the reports' times, within 3% or INFLIGHT I/Os (a report
      is printed a little after it read its counts). fio's per-second averaged logs would not
      do: their seconds are not the reports' and they average rates sampled each 500 ms.
Prints what it found. Exits 1 when figures disagree, else 4 when an interval spans more than
5 s, else 3 when one spans more than 1.5 s (the caller confirms that on a second run: on a
loaded host any process may wait that long for a CPU), 2 on bad input."""
import glob
import json
import sys

SPAN_MS = 1500
HARD_MS = 5000  # beyond any scheduling delay seen here: an engine that holds fio up
LOG_SLACK = 0.03


def agree(ios, nbytes, lat_n, bs, inflight):
    """None when the three counts agree, else why not."""
    by_bytes = nbytes / bs
    counts = {"ios": ios, "bytes/bs": by_bytes, "lat_n": lat_n}
    top = max(counts.values())
    slack = max(0.01 * top, inflight)
    lo = min(counts.values())
    if top - lo > slack:
        return "ios %d, bytes/bs %.1f, lat_n %d (apart %.1f, allowed %.1f)" % (
            ios, by_bytes, lat_n, top - lo, slack)
    return None


def check_samples(path, bs, inflight):
    bad, slow = [], []
    per = {}
    for line in open(path):
        f = line.split()
        if len(f) != 7:
            continue
        label, seq, iv, ios, nbytes, lat_n, last = f[0], *map(int, f[1:])
        st = per.setdefault(label, {"n": 0, "ios": 0, "max_iv": 0, "worst": 0.0})
        st["n"] += 1
        st["ios"] += ios
        why = agree(ios, nbytes, lat_n, bs, inflight)
        if why:
            bad.append("%s sample %d (%d ms): %s" % (label, seq, iv, why))
        if ios:
            st["worst"] = max(st["worst"], abs(nbytes / bs - ios) / ios)
        if not last:
            st["max_iv"] = max(st["max_iv"], iv)
            if iv > SPAN_MS:
                slow.append((iv, "%s sample %d spans %d ms (ios %d)" % (label, seq, iv, ios)))
    for label, st in sorted(per.items()):
        print("%s: %d samples, %d I/Os, longest %d ms (the last aside), bytes/bs vs ios at most "
              "%.2f%% apart" % (label, st["n"], st["ios"], st["max_iv"], 100 * st["worst"]))
    return bad, slow


def read_stream(path):
    """fio's objects: each starts with a line "{" and ends with a line "}"."""
    objs, cur = [], None
    for line in open(path):
        line = line.rstrip("\n")
        if line == "{":
            cur = [line]
        elif cur is not None:
            cur.append(line)
            if line == "}":
                objs.append(json.loads("\n".join(cur)))
                cur = None
    return objs


def read_log(path):
    """(unix ms, bytes) of each read in one of fio's per-I/O latency logs."""
    out = []
    for line in open(path):
        f = [x.strip() for x in line.split(",")]
        if len(f) >= 4 and f[2] == "0":
            out.append((int(f[0]), int(f[3])))
    return out


def check_fio(stream, prefix, bs, inflight):
    objs = read_stream(stream)
    if len(objs) < 4:
        # 4 or more of a 6 s run came apart by over 1.5 s each: a stall, confirmed as one (exit 4:
        # the caller runs it again, and fails when it recurs)
        print("FAIL: fio: only %d reports in %s: its reports came seconds apart" % (len(objs), stream))
        sys.exit(4)
    rows = []
    for o in objs:
        r = [j["read"] for j in o["jobs"]]
        rows.append((o["timestamp_ms"], sum(x["total_ios"] for x in r),
                     sum(x["io_bytes"] for x in r), sum(x["lat_ns"]["N"] for x in r)))
    done = sorted(e for p in glob.glob(prefix + "_lat.*.log") for e in read_log(p))
    if not done:
        print("fio: no log %s_lat.*.log" % prefix)
        sys.exit(2)
    bad, slow = [], []
    worst_iv = worst_log = 0
    at, n, b = 0, 0, 0
    logged = []  # I/Os and bytes the log holds up to each report's time
    for t, _, _, _ in rows:
        while at < len(done) and done[at][0] <= t:
            n, b = n + 1, b + done[at][1]
            at += 1
        logged.append((n, b))
    # The last report is fio's final one (after the jobs ended), not a status report.
    for k in range(1, len(rows) - 1):
        (t0, i0, b0, n0), (t1, i1, b1, n1) = rows[k - 1], rows[k]
        why = agree(i1 - i0, b1 - b0, n1 - n0, bs, inflight)
        if why:
            bad.append("fio report %d: %s" % (k, why))
        worst_iv = max(worst_iv, t1 - t0)
        if t1 - t0 > SPAN_MS:
            slow.append((t1 - t0, "fio report %d comes %d ms after the one before" % (k, t1 - t0)))
        # What the log says completed between the two reports' times: a report is printed a
        # little after it read its counts, so the two differ by what completes meanwhile.
        want_n = logged[k][0] - logged[k - 1][0]
        want_b = logged[k][1] - logged[k - 1][1]
        for what, got, want, unit in (("I/Os", n1 - n0, want_n, 1), ("bytes", b1 - b0, want_b, bs)):
            worst_log = max(worst_log, abs(got - want) / max(want, 1))
            if abs(got - want) > max(LOG_SLACK * want, inflight * unit):
                bad.append("fio report %d: %s %d, fio's log says %d" % (k, what, got, want))
    print("fio: %d reports, longest interval %d ms, intervals vs fio's per-I/O log at most %.2f%% "
          "apart; %d I/Os completed, %d logged" % (len(rows), worst_iv, 100 * worst_log,
                                                   rows[-1][3], len(done)))
    return bad, slow


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "samples":
        bad, slow = check_samples(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) == 6 and sys.argv[1] == "fio":
        bad, slow = check_fio(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        print(__doc__)
        sys.exit(2)
    for b in bad + [why for _, why in slow]:
        print("FAIL: " + b)
    hard = [ms for ms, _ in slow if ms > HARD_MS]
    sys.exit(1 if bad else 4 if hard else 3 if slow else 0)


main()
