"""Phases of the timed regions (capability phases), timed only when open asked for profile.

Each backend's scan_profiled and lookup_profiled are its scan and lookup with a clock read at every
boundary between phases, so that the phases tile the region: their sum is the region's time. The
names are dbbench's shared ones (docs/protocol.md, "Phases"): txn, get, execute, fetch, decode."""

import time

from .rowsum import rowsum


def tally_phases(rows, phases):
    """rowsum.tally, with each row's step of the iterator added to phases["fetch"] and its encoding
    and RowSum to phases["decode"] (the step that finds the end is a fetch too)."""
    clock = time.perf_counter_ns
    step = iter(rows).__next__
    n = total = fetch = decode = 0
    t = clock()
    while True:
        try:
            email, name, age = step()
        except StopIteration:
            break
        t1 = clock()
        fetch += t1 - t
        total += rowsum(email.encode(), name.encode(), age)
        n += 1
        t = clock()
        decode += t - t1
    fetch += clock() - t
    phases["fetch"] = phases.get("fetch", 0) + fetch
    phases["decode"] = phases.get("decode", 0) + decode
    return n, total


def sql_scan(cursor, sql, params):
    """One SELECT as its own transaction: execute (until the statement's result is ready), then the
    rows' fetch and decode. Returns rows, total, elapsed and the phases."""
    clock = time.perf_counter_ns
    start = clock()
    cur = cursor()
    cur.execute(sql, params)
    phases = {"execute": clock() - start}
    rows, total = tally_phases(cur, phases)
    end = clock()
    phases["fetch"] += end - start - sum(phases.values())  # after the step that found the end
    return rows, total, end - start, phases


def sql_lookup(cur, query, keys):
    """Lookups by email, each one statement (its own transaction): execute, fetch (fetchall) and
    decode. Returns rows, total, latencies and the phases, which sum to the latencies."""
    clock = time.perf_counter_ns
    execute, fetchall = cur.execute, cur.fetchall
    rows = total = ex = fetch = decode = 0
    latencies = []
    for k in keys:
        t0 = clock()
        execute(query, (k,))
        t1 = clock()
        found = fetchall()
        t2 = clock()
        for email, name, age in found:
            total += rowsum(email.encode(), name.encode(), age)
            rows += 1
        t3 = clock()
        ex += t1 - t0
        fetch += t2 - t1
        decode += t3 - t2
        latencies.append(t3 - t0)
    return rows, total, latencies, {"execute": ex, "fetch": fetch, "decode": decode}
