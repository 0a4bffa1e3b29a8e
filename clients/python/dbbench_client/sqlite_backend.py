"""The standard library's sqlite3 with the reference SQL of docs/protocol.md, in a file under temp_dir,
with WAL and synchronous=NORMAL as the Go sql adapter and the Node client (options change them).

Connections run in autocommit mode (isolation_level=None) so that every transaction is explicit:
BEGIN/COMMIT around the load and the insert workload, one statement per read transaction
otherwise. Rows come back as str, as sqlite3 users get them, and are encoded to bytes for RowSum.
"""

import contextlib
import os
import sqlite3
import time

from . import phases
from .backend import BaseBackend
from .records import read_records
from .rowsum import rowsum, tally
from .sqlrecords import SQLRecords, Statements

CREATE = "CREATE TABLE %s (email TEXT PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL) WITHOUT ROWID"
SCAN = "SELECT email, name, age FROM persons ORDER BY email LIMIT ?"
LOOKUP = "SELECT email, name, age FROM persons WHERE email = ?"
INSERT = "INSERT INTO %s (email, name, age) VALUES (?, ?, ?)"

_JOURNAL_MODES = ("delete", "truncate", "persist", "memory", "wal", "off")
_SYNCHRONOUS = ("off", "normal", "full", "extra")


def _choice(name, allowed):
    def parse(v):
        if not isinstance(v, str) or v.lower() not in allowed:
            raise ValueError("%s %r: want one of %s" % (name, v, ", ".join(allowed)))
        return v.lower()
    return parse


class Backend(SQLRecords, BaseBackend):
    library = "sqlite3"
    options = dict(BaseBackend.options,
                   journal_mode=_choice("journal_mode", _JOURNAL_MODES),
                   synchronous=_choice("synchronous", _SYNCHRONOUS))

    @staticmethod
    def library_version():
        return sqlite3.sqlite_version

    def setup(self, req):
        self.path = os.path.join(self.temp_dir, "persons.db")
        if os.path.exists(self.path):
            raise ValueError("%s exists; temp_dir must be empty" % self.path)
        self.db = self.connect()
        self.db.execute(CREATE % "persons")
        pragma = lambda name: str(self.db.execute("PRAGMA " + name).fetchone()[0])  # noqa: E731
        info = {
            "sqlite_version": sqlite3.sqlite_version,
            "journal_mode": pragma("journal_mode"),
            "synchronous": _SYNCHRONOUS[int(pragma("synchronous"))],
            "transactions": "autocommit (isolation_level=None); explicit BEGIN/COMMIT for load and insert",
            "rows_as": "str, encoded to UTF-8 bytes for RowSum",
            "load_path": "executemany of one prepared INSERT in email order, one transaction",
            "lookup_path": "one prepared SELECT (sqlite3's statement cache), fetchall: each its own read transaction",
            "insert_path": "Cursor.execute of the prepared INSERT per row between BEGIN and COMMIT",
            "concurrency_why": "processes by default, each with its own connection: sqlite3 releases the "
                               "GIL while stepping, but decoding rows and RowSum hold it",
        }
        return info, True

    def connect(self):
        # timeout=5: busy_timeout(5000), as the Go sql adapter
        db = sqlite3.connect(self.path, timeout=5.0, isolation_level=None, check_same_thread=False)
        for name, default in (("journal_mode", "wal"), ("synchronous", "normal")):
            db.execute("PRAGMA %s = %s" % (name, self.opts.get(name, default))).fetchall()
        return db

    def load(self):
        p = self.persons
        rows = ((p.email(i).decode(), p.name(i).decode(), p.age(i)) for i in p.sorted)
        start = time.perf_counter_ns()
        self.db.execute("BEGIN")
        self.db.executemany(INSERT % "persons", rows)
        self.db.execute("COMMIT")
        elapsed = time.perf_counter_ns() - start
        return self.db.execute("SELECT count(*) FROM persons").fetchone()[0], elapsed

    def scan(self, n):
        return _scan(self.db, SCAN, (n,))

    def lookup(self, indices):
        keys = self.emails_str(indices)
        execute, clock = self.db.cursor().execute, time.perf_counter_ns
        rows = total = 0
        latencies = []
        for k in keys:
            t0 = clock()
            # fetchall steps the statement to its end, which ends its read transaction
            for email, name, age in execute(LOOKUP, (k,)).fetchall():
                total += rowsum(email.encode(), name.encode(), age)
                rows += 1
            latencies.append(clock() - t0)
        return rows, total, latencies

    def scan_profiled(self, n):
        return phases.sql_scan(self.db.cursor, SCAN, (n,))

    def lookup_profiled(self, indices):
        return phases.sql_lookup(self.db.cursor(), LOOKUP, self.emails_str(indices))

    def read_kept(self, n):
        return _scan(self.db, "SELECT email, name, age FROM persons_insert", ())

    def insert_keep(self, n):
        """Insert the first n persons into a fresh table, kept for dbbench to read (protocol 2)."""
        persons = self.persons_str(range(n))
        db = self.db
        db.execute(CREATE % "persons_insert")
        try:
            sql = INSERT % "persons_insert"
            execute = db.cursor().execute
            start = time.perf_counter_ns()
            execute("BEGIN")
            for row in persons:
                execute(sql, row)
            execute("COMMIT")
            elapsed = time.perf_counter_ns() - start
        except Exception:
            if db.in_transaction:
                db.execute("ROLLBACK")
            self.drop()
            raise
        return elapsed, {"kind": "sqlite", "path": self.path, "table": "persons_insert"}

    def drop(self):
        self.db.execute("DROP TABLE persons_insert")

    def store(self):
        return {"kind": "sqlite", "path": self.path, "table": "persons"}

    def reader(self, n):
        db = self.connect()  # each reader its own connection, in threads as in processes
        return (lambda: _scan(db, SCAN, (n,))), db.close

    @contextlib.contextmanager
    def forking(self):
        # SQLite keeps per-process lock state for each open file: a child forked while this
        # connection is open would inherit it. Close the connection around the fork.
        self.db.close()
        try:
            yield
        finally:
            self.db = self.connect()

    def teardown(self):
        self.db.close()
        for suffix in ("", "-journal", "-wal", "-shm"):
            try:
                os.remove(self.path + suffix)
            except FileNotFoundError:
                pass

    def load_records(self, path, count):
        """YCSB's records into a fresh usertable: one transaction of prepared inserts (untimed)."""
        fields, records = read_records(path, count)
        self.db.execute("DROP TABLE IF EXISTS usertable")
        self.rec = Statements(fields, "?", "CREATE TABLE usertable (ycsb_key TEXT PRIMARY KEY%s) WITHOUT ROWID")
        self.db.execute(self.rec.create)
        self.db.execute("BEGIN")
        self.db.executemany(self.rec.insert, ([k.decode()] + [f.decode() for f in fs] for k, fs in records))
        self.db.execute("COMMIT")
        return self.db.execute("SELECT count(*) FROM usertable").fetchone()[0]

    def record_cursor(self):
        return contextlib.closing(self.db.cursor())


def _scan(db, sql, params):
    """Run one SELECT (its own read transaction), decode every row, fold RowSum."""
    start = time.perf_counter_ns()
    rows, total = tally(db.execute(sql, params))
    return rows, total, time.perf_counter_ns() - start
