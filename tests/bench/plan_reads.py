#!/usr/bin/env python3
"""plan_reads.py TABLE COMMAND BEFORE_LOG AFTER_LOG: read auto_explain's JSON plans (log_analyze
on) from two PostgreSQL server logs of the same command, one on the campaign alone and one on the
grown database, and print each statement that read more rows of lg.TABLE in the second: rows
returned plus those its filters removed, over all loops of every node that reads the table. A
command that reads only its campaign's rows reads as many at any database size. Exit 1 when a
statement read more, 2 when a log held no plan (auto_explain was not loaded)."""
import json
import re
import sys

table, command, logs = sys.argv[1], sys.argv[2], sys.argv[3:5]
head = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


def plans(path):
    out, cur = [], None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if head.match(line):
                if cur is not None:
                    out.append("".join(cur))
                cur = None
                i = line.find("plan:")
                if i >= 0 and "duration:" in line:
                    cur = [line[i + 5:]]
            elif cur is not None:
                cur.append(line)
    if cur is not None:
        out.append("".join(cur))
    return [json.loads(t) for t in out if t.strip().startswith("{")]


def reads(node):
    n = 0
    if node.get("Relation Name") == table:
        n = (node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0)
             + node.get("Rows Removed by Index Recheck", 0)) * max(node.get("Actual Loops", 1), 1)
    return n + sum(reads(c) for c in node.get("Plans", []))


def statements(path):
    """{query text: [rows read by each time it ran]}"""
    got = {}
    for p in plans(path):
        q = " ".join(p.get("Query Text", "?").split())
        got.setdefault(q, []).append(reads(p.get("Plan", {})))
    return got


before, after = statements(logs[0]), statements(logs[1])
if not before or not after:
    print("%s: no plan in %s: auto_explain did not log" % (command, logs[0 if not before else 1]))
    sys.exit(2)
bad = 0
for q, rows in after.items():
    was = before.get(q, [])
    # the statement's reads at each of its calls, in order; a call the smaller database did not
    # make counts as having read nothing there
    for i, n in enumerate(rows):
        b = was[i] if i < len(was) else 0
        if n > b:
            bad += 1
            print("%s: a statement read %d rows of lg.%s where it read %d on the campaign alone: %s"
                  % (command, n, table, b, q[:400]))
            break
sys.exit(1 if bad else 0)
