"""The concurrent workload's readers: K workers, readied first, then released together.

Threads share one interpreter, and RowSum is pure Python, so under the GIL K reader threads take
turns instead of reading at once; processes read truly in parallel. Each backend defaults to the
kind that measures its library best and takes a `concurrency` option to choose the other.
"""

import multiprocessing
import queue
import threading
import time

KINDS = ("processes", "threads")
_READY_TIMEOUT = 120  # seconds: a worker that cannot get ready fails the request, never hangs it


def run_readers(k, prepare, kind):
    """Run k readers: prepare() runs in each worker and returns read(), which returns
    (rows, checksum, elapsed_ns). Returns (wall_ns, [(rows, checksum, elapsed_ns), ...])."""
    if kind == "threads":
        sync, make = threading, threading.Thread
        results = queue.SimpleQueue()
    else:
        # fork: the readers start in milliseconds with the parent's modules loaded; each opens its
        # own store handles in prepare(), never using the parent's.
        sync = multiprocessing.get_context("fork")
        make = sync.Process
        results = sync.SimpleQueue()
    ready, go = sync.Barrier(k + 1, timeout=_READY_TIMEOUT), sync.Event()
    workers = [make(target=_reader, args=(i, prepare, ready, go, results), daemon=True) for i in range(k)]
    for w in workers:
        w.start()
    try:
        ready.wait()
    except threading.BrokenBarrierError:
        for w in workers:
            if hasattr(w, "terminate"):
                w.terminate()
        raise RuntimeError("concurrent: %d %s did not all get ready in %d s" % (k, kind, _READY_TIMEOUT))
    start = time.perf_counter_ns()
    go.set()
    got = [results.get() for _ in workers]
    for w in workers:
        w.join()
    tallies, ends = [None] * k, []
    for i, res in got:
        if isinstance(res, str):
            raise RuntimeError("concurrent: reader %d: %s" % (i, res))
        rows, total, elapsed, end = res
        tallies[i] = (rows, total, elapsed)
        ends.append(end)
    return max(ends) - start, tallies


def _reader(i, prepare, ready, go, results):
    read, err = None, None
    try:
        read = prepare()
    except Exception as e:
        err = "%s: %s" % (type(e).__name__, e)
    try:
        ready.wait()
    except threading.BrokenBarrierError:
        return  # the request failed; nobody waits for this reader
    go.wait()
    if read is not None:
        try:
            rows, total, elapsed = read()
            results.put((i, (rows, total, elapsed, time.perf_counter_ns())))
            return
        except Exception as e:
            err = "%s: %s" % (type(e).__name__, e)
    results.put((i, " ".join((err or "not ready").split())))


def check_kind(kind):
    if kind not in KINDS:
        raise ValueError("concurrency %r: want processes or threads" % (kind,))
    return kind
