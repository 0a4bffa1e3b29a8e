"""The concurrent workload's readers: K workers, readied first, then released together.

Threads share one interpreter, and RowSum is pure Python, so under the GIL K reader threads take
turns instead of reading at once; processes read truly in parallel. Each backend defaults to the
kind that measures its library best and takes a `concurrency` option to choose the other.
"""

import contextlib
import gc
import multiprocessing
import queue
import threading
import time

KINDS = ("processes", "threads")
_READY_TIMEOUT = 120  # seconds: a worker that cannot get ready fails the request, never hangs it


def run_readers(k, prepare, kind, forking=contextlib.nullcontext):
    """Run k readers: prepare() runs in each worker and returns (read, close): read() returns
    (rows, checksum, elapsed_ns), close (or None) releases what prepare opened, after the reader's
    end is taken. forking() is a context the processes are forked in. Returns
    (wall_ns, [(rows, checksum, elapsed_ns), ...])."""
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
    # Frozen objects are never traversed by the collector, so a forked reader's collections do not
    # copy the parent's pages.
    gc.freeze()
    try:
        with forking() if kind == "processes" else contextlib.nullcontext():
            for w in workers:
                w.start()
    finally:
        gc.unfreeze()
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
    read = close = err = None
    try:
        read, close = prepare()
        # One untimed read first: a new handle's first pass maps pages and fills caches (and a forked
        # reader copies the pages it writes), which a reader in a warm process does not pay.
        read()
    except Exception as e:
        err = e
        read = None
    try:
        ready.wait()
        go.wait()
        if read is not None:
            rows, total, elapsed = read()
            end = time.perf_counter_ns()
            results.put((i, (rows, total, elapsed, end)))
    except threading.BrokenBarrierError:
        pass  # the request failed already; nobody waits for this reader
    except Exception as e:
        err = e
    finally:
        if close is not None:
            try:
                close()
            except Exception:
                pass  # the tally is in; a failed release must not lose it
    if err is not None:
        results.put((i, " ".join(("%s: %s" % (type(err).__name__, err)).split())))


def check_kind(kind):
    if kind not in KINDS:
        raise ValueError("concurrency %r: want processes or threads" % (kind,))
    return kind
