"""YCSB's records (capability ops) in usertable(ycsb_key, field0, ...), as the Go sql adapter's: the
statements and the timed operations of the SQL backends. Each operation is one statement in autocommit
mode (its own transaction), on a cursor opened before its clock starts; each backend loads the table
with its driver's bulk path."""

import time

from .records import tally_rows


class Statements:
    """The statements on usertable for records of `fields` fields: param is the driver's placeholder,
    create the CREATE TABLE with %s where the field columns go."""

    def __init__(self, fields, param, create):
        self.fields = fields
        cols = ["field%d" % f for f in range(fields)]
        self.names = ", ".join(cols)
        self.create = create % "".join(", %s TEXT NOT NULL" % c for c in cols)
        self.read = "SELECT %s FROM usertable WHERE ycsb_key = %s" % (self.names, param)
        self.update = ["UPDATE usertable SET %s = %s WHERE ycsb_key = %s" % (c, param, param) for c in cols]
        self.insert = "INSERT INTO usertable (ycsb_key, %s) VALUES (%s)" % (self.names, ", ".join([param] * (fields + 1)))
        self.scan = "SELECT ycsb_key, %s FROM usertable WHERE ycsb_key >= %s ORDER BY ycsb_key LIMIT %s" % (
            self.names, param, param)


class SQLRecords:
    """The record operations of a backend whose load_records sets self.rec (Statements) and whose
    record_cursor() opens a DB-API cursor as a context manager."""

    def read_record(self, key):
        clock = time.perf_counter_ns
        with self.record_cursor() as cur:
            t0 = clock()
            cur.execute(self.rec.read, (key.decode(),))
            rows = cur.fetchall()  # to the statement's end, which ends SQLite's read transaction
            fields = [v.encode() for v in rows[0]] if rows else None
            return fields, clock() - t0

    def update_record(self, key, field, value):
        if not 0 <= field < self.rec.fields:
            raise ValueError("update of field %d: records have %d" % (field, self.rec.fields))
        clock = time.perf_counter_ns
        with self.record_cursor() as cur:
            t0 = clock()
            cur.execute(self.rec.update[field], (value.decode(), key.decode()))
            elapsed, n = clock() - t0, cur.rowcount
        if n != 1:
            raise ValueError("update of %r: no such record" % key.decode())
        return elapsed

    def insert_record(self, key, fields):
        if len(fields) != self.rec.fields:
            raise ValueError("insert with %d fields: records have %d" % (len(fields), self.rec.fields))
        clock = time.perf_counter_ns
        with self.record_cursor() as cur:
            t0 = clock()
            cur.execute(self.rec.insert, [key.decode()] + [f.decode() for f in fields])  # a duplicate raises
            return clock() - t0

    def scan_records(self, start, n):
        clock = time.perf_counter_ns
        with self.record_cursor() as cur:
            t0 = clock()
            cur.execute(self.rec.scan, (start.decode(), n))
            rows, total = tally_rows(cur)
            return rows, total, clock() - t0
