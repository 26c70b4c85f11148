#!/usr/bin/env bash
# it_import_versions: "lgctl import FILE..." the way a reviewer brings years of results: real
# output of fio 2.2.10, 2.21, 3.1, 3.7, 3.16, 3.19 and 3.28 (tests/data/fio-versions: json, json+,
# client mode, a status stream, two stonewall groups, text before the JSON, a failed job) stored
# with figures equal, to 1e-9, to what python3 computes from the files in fio's own units; a
# failed job is a failed run out of lg.v_metric; DiskSpd, sysbench (with a byte-order mark) and
# a fio file without I/O counts are refused by name, and nothing at all is stored then.
. "$(dirname "$0")/lib.sh"
pg_start
"$LG_BIN/lgctl" db migrate >/dev/null
D="$LG_SRC/tests/data/fio-versions"
counts() { q "SELECT (SELECT count(*) FROM lg.campaign) || '/' || (SELECT count(*) FROM lg.run)
    || '/' || (SELECT count(*) FROM lg.result)"; }

"$LG_BIN/lgctl" help import >"$T/help.txt" || fail "lgctl help import"
grep -q "^usage: lgctl import FILE" "$T/help.txt" || fail "help import: $(cat "$T/help.txt")"
echo "ok: lgctl help import answers"

# Each version's files in one import, as one campaign (json+ copied to a name of its own: a
# run's profile is its file's name without the extension).
mkdir "$T/in"
for f in "$D"/fio-*.*; do
    case $f in *.sh | *.md) ;; *.jsonplus) cp "$f" "$T/in/$(basename "$f" .jsonplus)-plus.json" ;;
    *) cp "$f" "$T/in/" ;; esac
done
for v in 2.2.10 2.21 3.1 3.7 3.16 3.19 3.28; do
    files=()
    for k in twojobs.json latpct.json latpct-plus.json groups.json normal-json.txt client.json \
        stream.json failed.json; do
        [ -f "$T/in/fio-$v.$k" ] && files+=("$T/in/fio-$v.$k")
    done
    "$LG_BIN/lgctl" import "${files[@]}" --name "fio-$v" --labels fio="$v" \
        >"$T/import-$v.txt" 2>"$T/import-$v.err" || { cat "$T/import-$v.err"; fail "import fio-$v"; }
    grep -q "imported ${#files[@]} files (fio JSON) as campaign" "$T/import-$v.txt" ||
        fail "fio-$v: $(head -3 "$T/import-$v.txt")"
    grep -q "fio-$v.failed.json\": fio job \"w\" failed with error 1 (Operation not permitted): stored as a failed run" \
        "$T/import-$v.err" || fail "fio-$v: no word on the failed job: $(cat "$T/import-$v.err")"
    case $v in 3.19 | 3.28) ! grep -q "output: " "$T/import-$v.err" ||
        fail "fio-$v needs no conversion: $(cat "$T/import-$v.err")" ;;
    *) grep -q "is fio-$v output: .*latency sample counts from total_ios" "$T/import-$v.err" ||
        fail "fio-$v: conversions not said: $(cat "$T/import-$v.err")" ;;
    esac
    echo "ok: fio-$v imported (${#files[@]} files)"
done

# Every stored figure against python3's own reading of the files.
q "SELECT json_agg(json_build_object('campaign', c.name, 'profile', r.profile, 'state', r.state,
    'error', r.error, 'direction', r.direction, 'run', r.run_id, 'threads', r.threads,
    'agents', (SELECT json_agg(a.name ORDER BY a.name) FROM lg.run_agent ra
               JOIN lg.agent a USING (agent_id) WHERE ra.run_id = r.run_id),
    'results', (SELECT json_agg(json_build_object('agent', a.name, 'dir', x.direction,
        'ios', x.ios, 'bytes', x.bytes, 'runtime_ms', x.runtime_ms, 'iops', x.iops,
        'bw_bytes', x.bw_bytes, 'lat_n', x.lat_n, 'lat_min', x.lat_min, 'lat_max', x.lat_max,
        'lat_mean', x.lat_mean, 'lat_stddev', x.lat_stddev, 'pct', x.percentiles))
        FROM lg.result x LEFT JOIN lg.agent a USING (agent_id) WHERE x.run_id = r.run_id),
    'metrics', (SELECT count(*) FROM lg.v_metric m WHERE m.run_id = r.run_id)))
  FROM lg.run r JOIN lg.campaign c USING (campaign_id)" >"$T/stored.json"
python3 - "$T/in" "$T/stored.json" <<'PY' || fail "stored figures differ from the files' own"
import json, math, os, re, sys
D, stored = sys.argv[1], json.load(open(sys.argv[2]))
bad, checked = [], 0

def objects(path):  # fio's pretty-printed objects: "{" ... "}" lines; the last is final
    lines, out, start = open(path, encoding='utf-8-sig').read().split('\n'), [], None
    for i, l in enumerate(lines):
        if l == '{': start = i
        elif l == '}' and start is not None:
            out.append(json.loads('\n'.join(lines[start:i + 1]))); start = None
    return out

def norm(x, opts):  # one direction in lg's units, by hand from fio's fields
    us = 'lat_ns' not in x
    lat = x['lat'] if us else x['lat_ns']
    f = 1000.0 if us else 1.0
    ios = x['total_ios']
    mx, mean = lat['max'] * f, lat['mean'] * f
    n = lat['N'] if 'N' in lat else (ios if mx > 0 or mean > 0 else 0)
    pct = None
    if not us:
        pct = lat.get('percentile')
        if pct is None and opts.get('lat_percentiles') == '1':
            pct = x.get('clat_ns', {}).get('percentile')
        if pct is not None:
            pct = {k: v for k, v in pct.items() if k != '0.00'}
    return dict(ios=ios, bytes=x['io_bytes'] * (1 if 'io_kbytes' in x else 1024),
                runtime_ms=x['runtime'], iops=x['iops'],
                bw_bytes=x['bw_bytes'] if 'bw_bytes' in x else x['bw'] * 1024.0,
                lat_n=n, lat_min=lat['min'] * f, lat_max=mx, lat_mean=mean,
                lat_stddev=lat['stddev'] * f, pct=pct)

def merge(ds):  # lg's exact merge: sums, pooled mean and sample stddev, min/max
    m = dict(ios=sum(d['ios'] for d in ds), bytes=sum(d['bytes'] for d in ds),
             runtime_ms=max(d['runtime_ms'] for d in ds), iops=sum(d['iops'] for d in ds),
             bw_bytes=sum(d['bw_bytes'] for d in ds), lat_n=sum(d['lat_n'] for d in ds))
    rmin = min(d['runtime_ms'] for d in ds)
    if len(ds) > 1 and m['runtime_ms'] > 0 and (m['runtime_ms'] - rmin) * 100 > m['runtime_ms']:
        m['iops'] = m['ios'] * 1000.0 / m['runtime_ms']
        m['bw_bytes'] = m['bytes'] * 1000.0 / m['runtime_ms']
    n = m['lat_n']
    if n:
        s = sum(d['lat_mean'] * d['lat_n'] for d in ds)
        ss = sum(d['lat_stddev'] ** 2 * (d['lat_n'] - 1) + d['lat_n'] * d['lat_mean'] ** 2
                 for d in ds if d['lat_n'])
        m['lat_mean'] = s / n
        m['lat_stddev'] = math.sqrt(max(0.0, (ss - n * m['lat_mean'] ** 2) / (n - 1))) if n > 1 else 0.0
        m['lat_min'] = min(d['lat_min'] for d in ds if d['lat_n'])
        m['lat_max'] = max(d['lat_max'] for d in ds)
    m['pct'] = ds[0]['pct'] if len(ds) == 1 else None
    return m

def near(a, b, tol=1e-9):
    return a is not None and abs(a - b) <= tol * max(abs(b), 1.0)

files = {}
for f in os.listdir(D):
    if f.startswith('fio-'):
        files[re.sub(r'\.(json|jsonplus|txt)$', '', f)] = f
for run in stored:
    prof = run['profile']
    m = re.match(r'(.*)\.g(\d+)$', prof)
    base, gid = (m.group(1), int(m.group(2))) if m and m.group(1) in files else (prof, None)
    path = os.path.join(D, files[base])
    rep = objects(path)[-1]
    glob_opts = rep.get('global options', {})
    jobs = [j for j in rep.get('jobs', rep.get('client_stats', [])) if j['jobname'] != 'All clients']
    if gid is not None:
        jobs = [j for j in jobs if j['groupid'] == gid]
    where = f"{run['campaign']} {prof}"
    if any(j['error'] for j in jobs):
        if run['state'] != 'failed' or run['results'] or run['metrics'] or 'error 1' not in (run['error'] or ''):
            bad.append(f"{where}: a failed job must be a failed run without figures: {run}")
        # fio-2.2 printed no job options: what the job ran is unknown there
        if run['direction'] != ('unknown' if 'job options' not in jobs[0] else 'write'):
            bad.append(f"{where}: the failed job wrote; direction {run['direction']}")
        checked += 1
        continue
    if run['state'] != 'done':
        bad.append(f"{where}: state {run['state']}"); continue
    hosts = sorted({f"{j['hostname']}:{j['port']}" for j in jobs if 'hostname' in j})
    want_agents = [f"import:{h}" for h in hosts] if hosts else ['import']
    if run['agents'] != want_agents:
        bad.append(f"{where}: agents {run['agents']}, want {want_agents}")
    for r in run['results'] or []:
        sel = [j for j in jobs if r['agent'] is None or not hosts
               or r['agent'] == 'import:%s:%s' % (j['hostname'], j['port'])]
        ds = [norm(j[r['dir']], dict(glob_opts, **j.get('job options', {}))) for j in sel]
        want = merge(ds)
        for k in ('ios', 'bytes', 'runtime_ms', 'iops', 'bw_bytes', 'lat_n'):
            if not near(r[k], want[k]):
                bad.append(f"{where} {r['agent']} {r['dir']} {k}: {r[k]} want {want[k]}")
        for k in ('lat_min', 'lat_max', 'lat_mean', 'lat_stddev'):
            if want['lat_n'] == 0:
                if r[k] is not None: bad.append(f"{where} {r['dir']} {k}: {r[k]}, want NULL")
            elif not near(r[k], want[k], 1e-9 if k != 'lat_stddev' else 1e-7):
                bad.append(f"{where} {r['agent']} {r['dir']} {k}: {r[k]} want {want[k]}")
        if want['pct'] and want['lat_n'] and r['pct'] != {k: v for k, v in want['pct'].items()}:
            bad.append(f"{where} {r['agent']} {r['dir']} percentiles: {r['pct']} want {want['pct']}")
        checked += 1
print(f"checked {checked} stored results and failed runs against the files")
for b in bad[:40]: print("BAD", b)
sys.exit(1 if bad or checked < 150 else 0)
PY
echo "ok: every figure equals the files' own (1e-9)"
expect_eq "failed runs" "$(q "SELECT count(*) FILTER (WHERE state = 'failed') || '/' ||
    count(*) FILTER (WHERE state = 'failed' AND direction IN ('write', 'unknown')
    AND error LIKE '%error 1%')
    FROM lg.run")" "7/7"
expect_eq "failed runs in v_metric" "$(q "SELECT count(*) FROM lg.v_metric m
    JOIN lg.run r USING (run_id) WHERE r.state = 'failed'")" "0"
expect_eq "groups: one run each" "$(q "SELECT string_agg(DISTINCT profile, ' ')
    FROM lg.run WHERE profile LIKE 'fio-3.16.groups%'")" "fio-3.16.groups.g0 fio-3.16.groups.g1"

# Runs appended to one file ("fio ... >> all.json"): each report a run of its own, a status
# stream (of this or any other version above) still one. Here four runs of two fio versions,
# the third a stream, and the same job run twice by this host's fio.
cat "$D/fio-3.16.latpct.json" "$D/fio-3.16.twojobs.json" "$D/fio-3.16.stream.json" \
    "$D/fio-3.28.latpct.json" >"$T/appended.json"
printf '[global]\nioengine=null\nsize=64m\nbs=4k\nrw=randread\ntime_based=1\nruntime=3\n[same]\n' >"$T/same.fio"
fio --output-format=json "$T/same.fio" >"$T/twice.json"
fio --output-format=json "$T/same.fio" >>"$T/twice.json"
"$LG_BIN/lgctl" import "$T/appended.json" "$T/twice.json" --name appended >/dev/null 2>"$T/appended.err" ||
    { cat "$T/appended.err"; fail "import of appended runs"; }
grep -q "appended.json\" holds the reports of 4 fio runs" "$T/appended.err" || fail "$(cat "$T/appended.err")"
q "SELECT json_agg(json_build_object('profile', r.profile, 'ios', x.ios, 'iops', x.iops,
    'lat_mean', x.lat_mean) ORDER BY r.ordinal) FROM lg.run r JOIN lg.campaign c USING (campaign_id)
    JOIN lg.result x USING (run_id) WHERE c.name = 'appended' AND x.agent_id IS NULL
    AND x.direction = CASE r.direction WHEN 'write' THEN 'write' ELSE 'read' END" \
    >"$T/appended-stored.json"
python3 - "$D" "$T" <<'PY' || fail "appended runs differ from their reports"
import json, sys
D, T = sys.argv[1], sys.argv[2]
def last(path, k=-1):
    lines, out, start = open(path).read().split('\n'), [], None
    for i, l in enumerate(lines):
        if l == '{': start = i
        elif l == '}' and start is not None:
            out.append(json.loads('\n'.join(lines[start:i + 1]))); start = None
    return out[k]
want = [('appended.r1', last(f'{D}/fio-3.16.latpct.json')), ('appended.r2', last(f'{D}/fio-3.16.twojobs.json')),
        ('appended.r3', last(f'{D}/fio-3.16.stream.json')), ('appended.r4', last(f'{D}/fio-3.28.latpct.json')),
        ('twice.r1', last(f'{T}/twice.json', 0)), ('twice.r2', last(f'{T}/twice.json', 1))]
got = json.load(open(f'{T}/appended-stored.json'))
rows = [(g['profile'], g) for g in got]
bad = []
for (p, rep), (gp, g) in zip(want, rows):
    jobs = rep['jobs']
    d = 'write' if p == 'appended.r3' else 'read'  # the stream wrote
    ios = sum(j[d]['total_ios'] for j in jobs)
    iops = sum(j[d]['iops'] for j in jobs)
    if gp != p or g['ios'] != ios or abs(g['iops'] - iops) > 1e-9 * iops:
        bad.append((p, gp, g, ios, iops))
print("appended:", [r[0] for r in rows])
if bad or len(rows) != len(want): print("BAD", bad, len(rows)); sys.exit(1)
PY
echo "ok: runs appended to one file are runs of their own"

# Refusals: each file named with what it was recognised as and why; nothing stored, not even
# the good file given with them.
before=$(counts)
python3 - "$D/fio-2.2.10.twojobs.json" "$T/fio-2.1.4.json" <<'PY'
import json, sys  # what fio-2.1.4 printed: no total_ios
r = json.load(open(sys.argv[1])); r['fio version'] = 'fio-2.1.4'
for j in r['jobs']:
    for d in ('read', 'write', 'trim'): j[d].pop('total_ios', None)
json.dump(r, open(sys.argv[2], 'w'), indent=2)
PY
printf '\xef\xbb\xbfsysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2)\n\nRunning the test with following options:\nNumber of threads: 8\n\nGeneral statistics:\n    total time: 10.0017s\n' >"$T/sysbench.log"
printf '<?xml version="1.0"?>\n<Results>\n  <System><Tool><Version>2.0.21a</Version></Tool></System>\n  <Profile><TimeSpans><TimeSpan><Duration>10</Duration></TimeSpan></TimeSpans></Profile>\n</Results>\n' >"$T/diskspd.xml"
head -c 3000 "$D/fio-3.28.twojobs.json" >"$T/truncated.json"
if "$LG_BIN/lgctl" import "$D/fio-3.28.twojobs.json" "$T/fio-2.1.4.json" "$T/sysbench.log" \
    "$T/diskspd.xml" "$T/truncated.json" >"$T/refused.txt" 2>"$T/refused.err"; then
    fail "a refused import exited 0"
fi
cat "$T/refused.err"
grep -q "fio-2.1.4.json\": recognised as fio JSON output of fio-2.1.4, which lg cannot read: .*missing \"total_ios\"" \
    "$T/refused.err" || fail "fio-2.1.4 refusal"
grep -q "sysbench.log\": recognised as sysbench output;" "$T/refused.err" || fail "sysbench refusal"
grep -q "diskspd.xml\": recognised as DiskSpd XML output;" "$T/refused.err" || fail "DiskSpd refusal"
grep -q "truncated.json\": recognised as fio JSON output of fio-3.28, which lg cannot read: invalid JSON" \
    "$T/refused.err" || fail "truncated refusal"
grep -q "nothing stored: 4 of 5 files" "$T/refused.err" || fail "no word that nothing was stored"
expect_eq "nothing stored by a refused import" "$(counts)" "$before"

# import fio-json names what it was given instead.
"$LG_BIN/lgctl" import fio-json "$T/diskspd.xml" 2>"$T/fj.err" && fail "import fio-json took DiskSpd XML"
grep -q "diskspd.xml\": recognised as DiskSpd XML output, not fio JSON" "$T/fj.err" ||
    fail "import fio-json of DiskSpd XML: $(cat "$T/fj.err")"
expect_eq "nothing stored by import fio-json" "$(counts)" "$before"

# A file PowerShell's > wrote (UTF-16) and an empty one: said as such.
printf '\xff\xfe<\0R\0' >"$T/utf16.xml"
: >"$T/empty.json"
"$LG_BIN/lgctl" import "$T/utf16.xml" "$T/empty.json" 2>"$T/odd.err" && fail "odd files imported"
grep -q "utf16.xml\" is UTF-16 text" "$T/odd.err" || fail "UTF-16: $(cat "$T/odd.err")"
grep -q "empty.json\" is empty" "$T/odd.err" || fail "empty: $(cat "$T/odd.err")"
expect_eq "nothing stored by odd files" "$(counts)" "$before"

# A byte-order mark before fio's JSON is no obstacle; import fio-json and import results stay.
printf '\xef\xbb\xbf' | cat - "$D/fio-3.16.latpct.json" >"$T/bom.json"
"$LG_BIN/lgctl" import "$T/bom.json" --name bom >/dev/null 2>"$T/bom.err" || { cat "$T/bom.err"; fail "BOM"; }
expect_eq "BOM file's IOPS" "$(q "SELECT x.iops = (SELECT ((ra.fio_json::jsonb)->'jobs'->0->'read'->>'iops')::float8)
    FROM lg.result x JOIN lg.run r USING (run_id) JOIN lg.campaign c USING (campaign_id)
    JOIN lg.run_agent ra ON ra.run_id = r.run_id WHERE c.name = 'bom' AND x.agent_id IS NULL")" "t"
"$LG_BIN/lgctl" import fio-json "$D/fio-3.16.twojobs.json" --name old-cmd >/dev/null 2>&1 ||
    fail "import fio-json of fio-3.16"
printf 'profile,direction,metric,value,unit,build\n4k-rand,read,iops,1000,IOPS,published\n' >"$T/pub.csv"
"$LG_BIN/lgctl" import "$T/pub.csv" >"$T/csv.txt" 2>&1 || { cat "$T/csv.txt"; fail "import of lg's CSV"; }
grep -q "imported 1 figure (lg's results CSV) as campaign" "$T/csv.txt" || fail "csv: $(cat "$T/csv.txt")"
echo "ok: BOM, import fio-json and lg's CSV"
