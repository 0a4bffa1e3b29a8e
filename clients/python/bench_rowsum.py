#!/usr/bin/python3
"""What RowSum costs per row in this client, on the persons of a person file.

Usage: /usr/bin/python3 clients/python/bench_rowsum.py [PERSON_FILE] (default: the committed
1,000-person test file). Prints, in ns per row, the best and the median of 21 passes of at least
20,000 rows (the best is the least disturbed by other processes on a shared machine), for the
inputs the backends fold: bytes (py-lmdb), memoryviews (py-lmdb with buffers=True, not used) and str
encoded first (sqlite3 and psycopg2 rows).
"""

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dbbench_client import rowsum as rs  # noqa: E402
from dbbench_client.persons import Persons  # noqa: E402

DEFAULT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "dataset", "testdata",
                       "persons-1000-seed1.bin")


def per_row(fold, rows, min_rows=20_000):
    reps = max(1, min_rows // len(rows))
    passes = []
    for _ in range(21):
        start = time.perf_counter_ns()
        for _ in range(reps):
            fold(rows)
        passes.append((time.perf_counter_ns() - start) / (reps * len(rows)))
    return min(passes), statistics.median(passes)


def main(path):
    p = Persons(path)
    rs.prepare(p.length_pairs())
    as_bytes = [p.person(i) for i in range(p.n)]
    views = [(memoryview(e), memoryview(b"\0" + nm)[1:], a) for e, nm, a in as_bytes]
    as_str = [(e.decode(), nm.decode(), a) for e, nm, a in as_bytes]
    rowsum = rs.rowsum

    def plain(rows):
        return sum(rowsum(e, nm, a) for e, nm, a in rows)

    def encoded(rows):
        return sum(rowsum(e.encode(), nm.encode(), a) for e, nm, a in rows)

    def loop_only(rows):
        return sum(a for e, nm, a in rows)

    print("%d persons (%s), CPython %s, load average %.1f" % (
        p.n, os.path.basename(path), sys.version.split()[0], os.getloadavg()[0]))
    print("%-45s %12s %12s" % ("ns/row", "best", "median"))
    for label, fold, rows in [
        ("the loop alone (included in the lines below)", loop_only, as_bytes),
        ("rowsum(bytes)", plain, as_bytes),
        ("rowsum(memoryview)", plain, views),
        ("rowsum(str.encode())", encoded, as_str),
    ]:
        print("%-45s %12.0f %12.0f" % ((label,) + per_row(fold, rows)))
    p.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else DEFAULT)
