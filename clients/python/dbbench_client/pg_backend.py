"""psycopg2 against the schema dbbench created: the reference SQL of docs/protocol.md.

Connections run in autocommit mode, so every transaction is explicit: one statement per read
transaction (a scan's SELECT, each lookup's EXECUTE), BEGIN/COMMIT around the insert workload.
Lookups and inserts use server-side prepared statements (PREPARE once per connection, then
EXECUTE), the closest psycopg2 2.9 comes to a prepared statement: its own parameters are
interpolated on the client. The DSN is a secret and never leaves this module.
"""

import io
import itertools
import time

import psycopg2
from psycopg2 import sql

from . import phases
from .backend import BaseBackend
from .records import read_records
from .rowsum import rowsum, tally
from .sqlrecords import SQLRecords, Statements

CREATE = 'CREATE TABLE {} (email TEXT COLLATE "C" PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL)'
SCAN = "SELECT email, name, age FROM persons ORDER BY email LIMIT %s"
PREPARE_LOOKUP = "PREPARE lookup(text) AS SELECT email, name, age FROM persons WHERE email = $1"
PREPARE_INSERT = ("PREPARE insert_person(text, text, integer) AS "
                  "INSERT INTO persons_insert (email, name, age) VALUES ($1, $2, $3)")
_COPY_ROWS = 10_000  # rows per chunk handed to COPY


class Backend(SQLRecords, BaseBackend):
    library = "psycopg2"
    concurrency = "threads"  # psycopg2 releases the GIL while it waits for the server

    @staticmethod
    def library_version():
        return psycopg2.__version__.split()[0]

    def setup(self, req):
        pg = req.get("postgres")
        if not isinstance(pg, dict) or not isinstance(pg.get("dsn"), str) or not isinstance(pg.get("schema"), str):
            raise ValueError("open: psycopg2 needs postgres {dsn, schema}: give the target postgres: true or a dsn")
        self.dsn, self.schema = pg["dsn"], pg["schema"]
        self.conn = self.connect()
        try:
            with self.conn.cursor() as cur:
                cur.execute(sql.SQL(CREATE).format(sql.Identifier("persons")))
                cur.execute(PREPARE_LOOKUP)
        except Exception:
            self.conn.close()
            raise
        info = {
            "psycopg2_version": psycopg2.__version__,
            "libpq_version": psycopg2.extensions.libpq_version(),
            "server_version": self.conn.server_version,
            "transactions": "autocommit; explicit BEGIN/COMMIT around the insert workload",
            "load_path": "COPY persons FROM STDIN (cursor.copy_expert) in email order, then VACUUM ANALYZE",
            "scan_path": "one SELECT ... ORDER BY email LIMIT n, a client-side cursor (the whole result in one reply)",
            "lookup_path": "server-side PREPARE once, EXECUTE per key, each its own transaction",
            "insert_path": "server-side PREPARE once, EXECUTE per row between BEGIN and COMMIT",
            "concurrency_why": "threads by default, one connection each: psycopg2 releases the GIL while "
                               "waiting for the server, which runs the K queries in parallel (decoding and "
                               "RowSum take turns)",
        }
        return info, True

    def connect(self):
        try:
            conn = psycopg2.connect(self.dsn)
        except psycopg2.Error as e:
            raise ValueError("postgres: %s" % _redact(str(e), self.dsn)) from None
        conn.autocommit = True
        with conn.cursor() as cur:
            cur.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(self.schema)))
        return conn

    def load(self):
        p = self.persons
        order = iter(p.sorted)
        chunks = iter(lambda: _copy_chunk(p, itertools.islice(order, _COPY_ROWS)), b"")
        start = time.perf_counter_ns()
        with self.conn.cursor() as cur:
            cur.copy_expert("COPY persons (email, name, age) FROM STDIN", _ChunkReader(chunks))
            elapsed = time.perf_counter_ns() - start
            cur.execute("VACUUM ANALYZE persons")  # hint bits set, no autovacuum mid-run (docs/protocol.md)
            cur.execute("SELECT count(*) FROM persons")
            return cur.fetchone()[0], elapsed

    def scan(self, n):
        return _scan(self.conn, SCAN, (n,))

    def lookup(self, indices):
        keys = self.emails_str(indices)
        clock = time.perf_counter_ns
        rows = total = 0
        latencies = []
        with self.conn.cursor() as cur:
            execute, fetchall = cur.execute, cur.fetchall
            for k in keys:
                t0 = clock()
                execute("EXECUTE lookup(%s)", (k,))
                for email, name, age in fetchall():
                    total += rowsum(email.encode(), name.encode(), age)
                    rows += 1
                latencies.append(clock() - t0)
        return rows, total, latencies

    def scan_profiled(self, n):
        with self.conn.cursor() as cur:
            return phases.sql_scan(lambda: cur, SCAN, (n,))

    def lookup_profiled(self, indices):
        with self.conn.cursor() as cur:
            return phases.sql_lookup(cur, "EXECUTE lookup(%s)", self.emails_str(indices))

    def read_kept(self, n):
        return _scan(self.conn, "SELECT email, name, age FROM persons_insert", ())

    def insert_keep(self, n):
        """Insert the first n persons into a fresh table, kept for dbbench to read (protocol 2)."""
        persons = self.persons_str(range(n))
        with self.conn.cursor() as cur:
            cur.execute(sql.SQL(CREATE).format(sql.Identifier("persons_insert")))
            try:
                cur.execute(PREPARE_INSERT)
                execute = cur.execute
                start = time.perf_counter_ns()
                execute("BEGIN")
                for row in persons:
                    execute("EXECUTE insert_person(%s, %s, %s)", row)
                execute("COMMIT")
                elapsed = time.perf_counter_ns() - start
            except Exception:
                if self.conn.info.transaction_status != psycopg2.extensions.TRANSACTION_STATUS_IDLE:
                    cur.execute("ROLLBACK")
                self.drop()
                raise
        return elapsed, {"kind": "postgres", "schema": self.schema, "table": "persons_insert"}

    def drop(self):
        with self.conn.cursor() as cur:
            cur.execute("DEALLOCATE insert_person")
            cur.execute("DROP TABLE persons_insert")

    def store(self):
        return {"kind": "postgres", "schema": self.schema, "table": "persons"}

    def reader(self, n):
        conn = self.connect()
        return (lambda: _scan(conn, SCAN, (n,))), conn.close

    def teardown(self):
        self.conn.close()  # dbbench drops the schema

    def load_records(self, path, count):
        """YCSB's records into a fresh usertable of the schema: COPY, then VACUUM ANALYZE (untimed)."""
        fields, records = read_records(path, count)
        rec = Statements(fields, "%s", 'CREATE TABLE usertable (ycsb_key TEXT COLLATE "C" PRIMARY KEY%s)')
        buf = io.StringIO()
        for k, fs in records:
            buf.write("\t".join(_copy_text(v.decode()) for v in [k] + fs) + "\n")
        buf.seek(0)
        with self.conn.cursor() as cur:
            cur.execute("DROP TABLE IF EXISTS usertable")
            cur.execute(rec.create)
            cur.copy_expert("COPY usertable (ycsb_key, %s) FROM STDIN" % rec.names, buf)
            cur.execute("VACUUM ANALYZE usertable")
            cur.execute("SELECT count(*) FROM usertable")
            rows = cur.fetchone()[0]
        self.rec = rec
        return rows

    def record_cursor(self):
        return self.conn.cursor()


def _redact(msg, dsn):
    """msg without the DSN or its password: libpq quotes pieces of a DSN it cannot parse."""
    if "invalid dsn" in msg:
        return "the dsn is not a valid connection string (not shown: it may hold a password)"
    try:
        password = psycopg2.extensions.parse_dsn(dsn).get("password")
    except psycopg2.Error:
        password = None
    for secret in (dsn, password):
        if secret:
            msg = msg.replace(secret, "***")
    return msg


def _scan(conn, query, params):
    """Run one SELECT (its own transaction), decode every row, fold RowSum."""
    start = time.perf_counter_ns()
    with conn.cursor() as cur:
        cur.execute(query, params)
        rows, total = tally(cur)
    return rows, total, time.perf_counter_ns() - start


def _copy_chunk(p, indices):
    """COPY's text format for these persons: emails and names are plain ASCII without tabs,
    newlines or backslashes (dataset.Persons), so no escaping is needed; checked anyway."""
    buf = io.BytesIO()
    for i in indices:
        buf.write(b"%s\t%s\t%d\n" % (p.email(i), p.name(i), p.age(i)))
    data = buf.getvalue()
    if b"\\" in data:
        raise ValueError("a person holds a backslash, which COPY's text format would need escaped")
    return data


class _ChunkReader:
    """A file-like object for copy_expert, handing out one chunk per read."""

    def __init__(self, chunks):
        self.chunks = chunks

    def read(self, size=-1):
        return next(self.chunks, b"")


def _copy_text(s):
    return s.replace("\\", "\\\\")  # printable ASCII: only the backslash needs escaping in COPY's text format
