"""Spawn the client per library and speak the protocol to it, as dbbench does."""

import json
import os
import queue
import subprocess
import threading
import unittest
import uuid

import support

PYTHON = "/usr/bin/python3"
TIMEOUT = 60  # seconds for one reply on a loaded machine


class Client:
    """One client process; request() sends a request and returns its reply, checking the id."""

    def __init__(self, test, library):
        self.test = test
        self.proc = subprocess.Popen(
            [PYTHON, support.CLIENT, library], cwd=support.REPO,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.next_id = 0
        test.addCleanup(self.kill)

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send_line(self, line):
        self.proc.stdin.write(line)
        self.proc.stdin.flush()
        line = self.lines.get(timeout=TIMEOUT)
        self.test.assertIsNotNone(line, "client exited; stderr: %s" % self.stderr())
        self.test.assertTrue(line.endswith(b"\n"))
        reply = json.loads(line)
        self.test.assertIsInstance(reply, dict)
        return reply

    def request(self, op, **fields):
        self.next_id += 1
        reply = self.send_line(json.dumps(dict(fields, id=self.next_id, op=op)).encode() + b"\n")
        self.test.assertEqual(reply.get("id"), self.next_id, reply)
        return reply

    def ok(self, op, **fields):
        reply = self.request(op, **fields)
        self.test.assertNotIn("error", reply)
        return reply

    def end_input(self):
        """Close stdin: the client must exit 0 with nothing more on stdout."""
        self.proc.stdin.close()
        self.test.assertEqual(self.proc.wait(timeout=TIMEOUT), 0, self.stderr())
        self.test.assertIsNone(self.lines.get(timeout=TIMEOUT), "output after the last reply")

    def stderr(self):
        return self.proc.stderr.read().decode(errors="replace") if self.proc.poll() is not None else ""

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            f.close()


class SessionTest(unittest.TestCase):
    def setUp(self):
        self.want = support.VECTORS["dataset"]

    def targets(self):
        """(library, extra open fields, client options) for every library this machine can run."""
        out = []
        if support.available("lmdb"):
            out += [("lmdb", {}, {}), ("lmdb", {}, {"concurrency": "threads", "map_size": "64MiB"})]
        out += [("sqlite3", {}, {}),
                ("sqlite3", {}, {"concurrency": "threads", "journal_mode": "delete", "synchronous": "full"})]
        dsn = os.environ.get("DBBENCH_TEST_PG_DSN")
        if dsn and support.available("psycopg2"):
            out.append(("psycopg2", {"postgres": {"dsn": dsn, "schema": self.schema(dsn)}}, {}))
        return out

    def schema(self, dsn):
        """A throwaway schema, dropped after the test, as dbbench does for a target."""
        import psycopg2
        name = "dbbench_py_" + uuid.uuid4().hex[:12]
        conn = psycopg2.connect(dsn)
        conn.autocommit = True
        conn.cursor().execute('CREATE SCHEMA "%s"' % name)

        def drop():
            conn.cursor().execute('DROP SCHEMA "%s" CASCADE' % name)
            conn.close()
        self.addCleanup(drop)
        return name

    def open_request(self, extra, options):
        return dict(extra, options=options, size=self.want["n"], seed=self.want["seed"],
                    temp_dir=support.temp_dir(self), dataset=support.DATASET)

    def test_session(self):
        n, want = self.want["n"], self.want
        for library, extra, options in self.targets():
            with self.subTest(library=library, options=options):
                c = Client(self, library)
                hello = c.ok("hello", protocol=1, dbbench="test")
                self.assertEqual((hello["protocol"], hello["language"], hello["library"]), (1, "Python", library))
                self.assertTrue(hello["runtime"].startswith("CPython 3."), hello["runtime"])
                self.assertTrue(hello["library_version"])
                self.assertEqual(hello["workloads"], ["scan", "lookup", "insert", "concurrent"])
                self.assertTrue(set(options) <= set(hello["options"]), hello["options"])

                req = self.open_request(extra, options)
                opened = c.ok("open", **req)
                self.assertIs(opened["scans_in_key_order"], True)
                if "postgres" in extra:
                    self.assertNotIn(extra["postgres"]["dsn"], json.dumps(opened))
                self.assertEqual(c.ok("load")["rows"], n)
                self.assertEqual(c.ok("ping"), {"id": c.next_id})

                cases = [
                    ("scan", {"rows": n}, n, want["sum_all"]),
                    ("scan", {"rows": 10}, 10, want["sum_sorted_prefix_10"]),
                    ("scan", {"rows": n + 5}, n, want["sum_all"]),
                    ("lookup", {"keys": list(range(10))}, 10, want["sum_first_10"]),
                    ("insert", {"rows": 10}, 10, want["sum_first_10"]),
                    ("insert", {"rows": n}, n, want["sum_all"]),
                ]
                for op, fields, rows, checksum in cases:
                    r = c.ok(op, **fields)
                    self.assertEqual((r["rows"], r["checksum"]), (rows, checksum), (op, fields))
                    if op == "lookup":
                        self.assertEqual(len(r["latencies_ns"]), len(fields["keys"]))
                        self.assertTrue(all(type(t) is int and t > 0 for t in r["latencies_ns"]))
                    else:
                        self.assertGreater(r["elapsed_ns"], 0)

                r = c.ok("lookup", keys=[0, 0, n - 1])
                self.assertEqual(r["rows"], 3)
                r = c.ok("concurrent", readers=2, rows=n)
                self.assertEqual([(x["rows"], x["checksum"]) for x in r["readers"]], [(n, want["sum_all"])] * 2)
                self.assertGreaterEqual(r["wall_ns"], max(x["elapsed_ns"] for x in r["readers"]))

                self.assertEqual(c.ok("close"), {"id": c.next_id})
                c.end_input()
                if library != "psycopg2":
                    self.assertEqual(os.listdir(req["temp_dir"]), [], "left in temp_dir")

    def test_bad_requests(self):
        # Each bad request gets one error line and the client stays usable.
        c = Client(self, "sqlite3")
        cases = [
            ("hello", {"protocol": 3}),
            ("frobnicate", {}),
            ("scan", {"rows": 1}),  # before open
            ("open", {"options": {"nosuch": 1}, "temp_dir": support.temp_dir(self), "dataset": support.DATASET}),
            ("open", {"options": {}, "temp_dir": support.temp_dir(self), "dataset": "/nonexistent/persons.bin"}),
            ("open", {"options": {"concurrency": "fibers"}, "temp_dir": support.temp_dir(self), "dataset": support.DATASET}),
            ("open", {"options": {}, "size": 999, "temp_dir": support.temp_dir(self), "dataset": support.DATASET}),
        ]
        for op, fields in cases:
            with self.subTest(op=op, fields=fields):
                r = c.request(op, **fields)
                self.assertIsInstance(r.get("error"), str, r)
                self.assertNotIn("\n", r["error"])
        c.ok("open", **self.open_request({}, {}))
        c.ok("load")
        cases = [
            ("scan", {"rows": -1}),
            ("scan", {"rows": "10"}),
            ("lookup", {"keys": [self.want["n"]]}),
            ("lookup", {"keys": "0"}),
            ("insert", {"rows": self.want["n"] + 1}),
            ("concurrent", {"readers": 0, "rows": 1}),
            ("run", {"workload": "x", "params": {}, "ops": 1}),
            ("insert", {"rows": 1, "keep": True}),  # keep needs protocol 2; this session speaks 1
            ("drop", {}),  # nothing kept
            ("open", self.open_request({}, {})),  # twice
        ]
        for op, fields in cases:
            with self.subTest(op=op, fields=fields):
                self.assertIsInstance(c.request(op, **fields).get("error"), str)
        for line in (b"not json\n", b"[1]\n", b'{"op":"ping"}\n'):
            with self.subTest(line=line):
                r = c.send_line(line)
                self.assertEqual(r["id"], 0)
                self.assertIsInstance(r["error"], str)
        c.ok("ping")
        c.end_input()  # without close: end of input alone ends the client

    def test_protocol2_keeps_stores(self):
        # Version 2: the loaded store and an insert's fresh store are described, and the fresh one
        # stays, readable from outside the client, until drop.
        for library in ("lmdb", "sqlite3"):
            if not support.available(library):
                continue
            with self.subTest(library=library):
                c = Client(self, library)
                hello = c.ok("hello", protocol=2, dbbench="test")
                self.assertEqual((hello["protocol"], hello["capabilities"]), (2, ["keep_store", "store", "ops", "phases"]))
                c.ok("open", **self.open_request({}, {}))
                load = c.ok("load")
                self.assertEqual(load["store"]["kind"], "lmdb" if library == "lmdb" else "sqlite")
                self.assertEqual(count_rows(load["store"]), self.want["n"])
                kept = c.ok("insert", rows=10, keep=True)
                self.assertGreater(kept["elapsed_ns"], 0)
                self.assertEqual(count_rows(kept["store"]), 10)
                self.assertIn("still kept", c.request("insert", rows=10, keep=True)["error"])
                c.ok("drop")
                if library == "lmdb":
                    self.assertFalse(os.path.exists(kept["store"]["path"]), "the fresh environment outlived drop")
                else:
                    with self.assertRaisesRegex(Exception, "no such table"):
                        count_rows(kept["store"])
                self.assertIn("no insert kept", c.request("drop")["error"])
                c.ok("close")
                c.end_input()

    def test_phases(self):
        # Capability phases: asked in open, scans and lookups carry their phases in order, summing
        # to their own time; unasked, or on other replies, there are none.
        names = {"lmdb": ["txn", "get", "decode"], "sqlite3": ["execute", "fetch", "decode"],
                 "psycopg2": ["execute", "fetch", "decode"]}
        n = self.want["n"]
        for library, extra, options in self.targets():
            for profile in (True, False):
                with self.subTest(library=library, options=options, profile=profile):
                    c = Client(self, library)
                    self.assertIn("phases", c.ok("hello", protocol=2, dbbench="test")["capabilities"])
                    c.ok("open", profile=profile, **self.open_request(extra, options))
                    c.ok("load")
                    scan = c.ok("scan", rows=n)
                    lookup = c.ok("lookup", keys=list(range(50)))
                    self.assertEqual((scan["checksum"], lookup["checksum"]), (self.want["sum_all"], c.ok("lookup", keys=list(range(50)))["checksum"]))
                    self.assertNotIn("phases_ns", c.ok("insert", rows=10))
                    if not profile:
                        self.assertNotIn("phases_ns", scan)
                        self.assertNotIn("phases_ns", lookup)
                        continue
                    for reply, own in ((scan, scan["elapsed_ns"]), (lookup, sum(lookup["latencies_ns"]))):
                        phases = reply["phases_ns"]
                        self.assertEqual(list(phases), names[library])
                        self.assertTrue(all(type(v) is int and v > 0 for v in phases.values()), phases)
                        self.assertLessEqual(sum(phases.values()), own)
                        self.assertGreater(sum(phases.values()), own * 0.9, (phases, own))
                    c.ok("close")
        c = Client(self, "sqlite3")
        c.ok("hello", protocol=1, dbbench="test")
        self.assertIn("capability phases", c.request("open", profile=True, **self.open_request({}, {}))["error"])

    def test_bad_start(self):
        # A module that fails to import stands in for a library that is not installed.
        missing = support.temp_dir(self)
        with open(os.path.join(missing, "lmdb.py"), "w") as f:
            f.write("raise ImportError('not here')\n")
        cases = [
            ("unknown library", ["nosuchdb"], {}, b"unknown library 'nosuchdb'"),
            ("no arguments", [], {}, b"usage: dbbench-client.py"),
            ("library missing", ["lmdb"], {"PYTHONPATH": missing}, b"apt-get install -y python3-lmdb"),
        ]
        for name, args, env, want in cases:
            with self.subTest(name):
                p = subprocess.run([PYTHON, support.CLIENT] + args, input=b"", capture_output=True,
                                   timeout=TIMEOUT, env=dict(os.environ, **env))
                self.assertEqual(p.returncode, 2)
                self.assertEqual(p.stdout, b"")
                self.assertIn(want, p.stderr)


if __name__ == "__main__":
    unittest.main()


def count_rows(store):
    """The rows a store a version 2 reply describes holds, read from outside the client, read-only."""
    if store["kind"] == "lmdb":
        import lmdb
        env = lmdb.open(store["path"], readonly=True, lock=False)
        try:
            return env.stat()["entries"]
        finally:
            env.close()
    import sqlite3
    db = sqlite3.connect("file:%s?mode=ro" % store["path"], uri=True)
    try:
        return db.execute("SELECT count(*) FROM %s" % store["table"]).fetchone()[0]
    finally:
        db.close()
