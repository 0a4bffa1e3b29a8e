import os
import time
import unittest

import support  # noqa: F401
from dbbench_client.readers import KINDS, run_readers


def scan_stub(rows):
    """A reader that reports which process ran it in its checksum."""
    def prepare():
        def read():
            start = time.perf_counter_ns()
            time.sleep(0.01)
            return rows, os.getpid(), time.perf_counter_ns() - start
        return read, None
    return prepare


class ReadersTest(unittest.TestCase):
    def test_kinds(self):
        for kind in KINDS:
            with self.subTest(kind):
                wall, tallies = run_readers(3, scan_stub(7), kind)
                self.assertEqual([t[0] for t in tallies], [7, 7, 7])
                pids = {t[1] for t in tallies}
                if kind == "threads":
                    self.assertEqual(pids, {os.getpid()})
                else:
                    self.assertEqual(len(pids), 3)
                    self.assertNotIn(os.getpid(), pids)
                # released together: the wall spans the slowest reader, not their sum
                self.assertGreaterEqual(wall, max(t[2] for t in tallies))
                self.assertLess(wall, sum(t[2] for t in tallies) + 2_000_000_000)

    def test_failures_are_errors(self):
        def broken_prepare():
            raise OSError("no such store")

        def broken_read():
            return (lambda: 1 / 0), None

        cases = [("prepare", broken_prepare, "no such store"), ("read", broken_read, "ZeroDivisionError")]
        for kind in KINDS:
            for name, prepare, want in cases:
                with self.subTest(kind=kind, fails=name):
                    with self.assertRaisesRegex(RuntimeError, want):
                        run_readers(2, prepare, kind)

    def test_close_runs_after_the_read(self):
        closed = []

        def prepare():
            return (lambda: (1, 0, 1)), (lambda: closed.append(True))
        run_readers(2, prepare, "threads")
        self.assertEqual(closed, [True, True])


if __name__ == "__main__":
    unittest.main()
