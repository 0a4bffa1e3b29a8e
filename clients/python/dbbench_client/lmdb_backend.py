"""py-lmdb: the key is the email, the value [age uint8][name], as in the Go and C LMDB targets."""

import contextlib
import itertools
import os
import shutil
import struct
import tempfile
import time

import lmdb

from .backend import BaseBackend, parse_size
from .rowsum import rowsum

_LOAD_TXN_ROWS = 100_000  # rows per write transaction while loading: bounded dirty-page lists


class Backend(BaseBackend):
    library = "lmdb"
    options = dict(BaseBackend.options, map_size=parse_size)

    @staticmethod
    def library_version():
        return "%d.%d.%d" % lmdb.version()

    def setup(self, req):
        p = self.persons
        # The map is only reserved address space: default to four times the file plus 64 bytes a row.
        self.map_size = self.opts.get("map_size", max(64 << 20, 4 * (p.n * 64 + os.path.getsize(req["dataset"]))))
        self.dir = tempfile.mkdtemp(prefix="lmdb-", dir=self.temp_dir)
        self.env = _open(self.dir, self.map_size)
        info = {
            "py_lmdb_version": lmdb.__version__,
            "lmdb_version": self.library_version(),
            "map_size_bytes": self.map_size,
            "sync": False,
            "env_flags": self.env.flags(),  # py-lmdb always adds MDB_NOTLS
            "scan_path": "Cursor.iternext in one read txn; keys and values as bytes (buffers=True measured "
                         "slower: RowSum reads bytes faster than memoryviews)",
            "lookup_path": "Transaction.get, each in its own read txn (py-lmdb renews a spare txn)",
            "load_path": "Cursor.putmulti(append=True) in email order, %d rows per txn" % _LOAD_TXN_ROWS,
            "insert_path": "Transaction.put per row in one write txn on a fresh environment",
            "concurrency_why": "processes by default: RowSum is pure Python and holds the GIL, so reader "
                               "threads take turns; forked readers each open the environment and can use every core",
        }
        return info, True

    def load(self):
        p = self.persons
        start = time.perf_counter_ns()
        stored = 0
        order = iter(p.sorted)
        while True:
            chunk = [(p.email(i), bytes((p.age(i),)) + p.name(i)) for i in itertools.islice(order, _LOAD_TXN_ROWS)]
            if not chunk:
                break
            with self.env.begin(write=True) as txn, _map_full_hint(self.map_size):
                stored += txn.cursor().putmulti(chunk, append=True)[1]
        return stored, time.perf_counter_ns() - start

    def scan(self, n):
        return _scan(self.env, n)

    def lookup(self, indices):
        keys = [self.persons.email(i) for i in indices]
        begin, clock = self.env.begin, time.perf_counter_ns
        rows = total = 0
        latencies = []
        for k in keys:
            t0 = clock()
            with begin() as txn:
                v = txn.get(k)
                if v is not None:
                    total += rowsum(k, v[1:], v[0])
                    rows += 1
            latencies.append(clock() - t0)
        return rows, total, latencies

    def scan_profiled(self, n):
        """scan, split into txn (begin and end), get (each cursor step, the bytes copied out of
        LMDB into Python objects included) and decode (RowSum)."""
        clock = time.perf_counter_ns
        rows = total = get = decode = 0
        start = clock()
        with self.env.begin() as txn:
            t = clock()
            txn_ns = t - start
            step = txn.cursor().iternext().__next__
            for _ in range(n):
                try:
                    email, v = step()
                except StopIteration:
                    break
                t1 = clock()
                get += t1 - t
                total += rowsum(email, v[1:], v[0])
                rows += 1
                t = clock()
                decode += t - t1
        end = clock()
        txn_ns += end - t
        return rows, total, end - start, {"txn": txn_ns, "get": get, "decode": decode}

    def lookup_profiled(self, indices):
        """lookup, split into txn (begin and end of each read transaction), get (Transaction.get,
        the value copied into a Python bytes included) and decode (RowSum)."""
        keys = [self.persons.email(i) for i in indices]
        begin, clock = self.env.begin, time.perf_counter_ns
        rows = total = txn_ns = get = decode = 0
        latencies = []
        for k in keys:
            t0 = clock()
            with begin() as txn:
                t1 = clock()
                v = txn.get(k)
                t2 = clock()
                if v is not None:
                    total += rowsum(k, v[1:], v[0])
                    rows += 1
                t3 = clock()
            t4 = clock()
            txn_ns += t1 - t0 + t4 - t3
            get += t2 - t1
            decode += t3 - t2
            latencies.append(t4 - t0)
        return rows, total, latencies, {"txn": txn_ns, "get": get, "decode": decode}

    def read_kept(self, n):
        return _scan(self.kept[0], n + 1)

    def insert_keep(self, n):
        """Insert the first n persons into a fresh environment, kept for dbbench to read (protocol 2)."""
        persons = [self.persons.person(i) for i in range(n)]
        d = tempfile.mkdtemp(prefix="insert-", dir=self.temp_dir)
        try:
            env = _open(d, self.map_size)
        except Exception:
            shutil.rmtree(d)
            raise
        self.kept = (env, d)
        try:
            start = time.perf_counter_ns()
            with _map_full_hint(self.map_size):
                txn = env.begin(write=True)
                put = txn.put
                for email, name, age in persons:
                    put(email, bytes((age,)) + name)
                txn.commit()
            elapsed = time.perf_counter_ns() - start
        except Exception:
            self.drop()
            raise
        return elapsed, {"kind": "lmdb", "path": d}

    def drop(self):
        env, d = self.kept
        self.kept = None
        try:
            env.close()
        finally:
            shutil.rmtree(d)

    def store(self):
        return {"kind": "lmdb", "path": self.dir}

    def reader(self, n):
        if self.concurrency == "threads":
            return (lambda: _scan(self.env, n)), None
        env = _open(self.dir, self.map_size, readonly=True)  # this process's own handle
        return (lambda: _scan(env, n)), env.close

    def teardown(self):
        self.env.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@contextlib.contextmanager
def _map_full_hint(map_size):
    try:
        yield
    except lmdb.MapFullError:
        raise ValueError("the LMDB map is full at map_size %d bytes: raise the map_size option" % map_size) from None


def _open(path, map_size, readonly=False):
    return lmdb.open(path, map_size=map_size, sync=False, readonly=readonly, max_dbs=0)


def _scan(env, n):
    """Read the first n pairs in key order in one read transaction, decode each, fold RowSum."""
    rows = total = 0
    start = time.perf_counter_ns()
    with env.begin() as txn:
        for email, v in itertools.islice(txn.cursor().iternext(), n):
            total += rowsum(email, v[1:], v[0])
            rows += 1
    return rows, total, time.perf_counter_ns() - start


# YCSB's records (capability ops): an environment of their own under temp_dir, key = the record's
# key, value = its fields, each a uint32 length (little-endian) and the bytes.

def _pack(fields):
    return b"".join(struct.pack("<I", len(f)) + f for f in fields)


def _unpack(v):
    out, off = [], 0
    while off < len(v):
        (n,) = struct.unpack_from("<I", v, off)
        out.append(bytes(v[off + 4:off + 4 + n]))
        off += 4 + n
    return out


def _load_records(self, path, count):
    from .records import read_records
    fields, records = read_records(path, count)
    old = getattr(self, "rec_env", None)
    if old is not None:
        old[0].close()
        shutil.rmtree(old[1])
    pairs = sorted((k, _pack(fs)) for k, fs in records)
    size = max(64 << 20, 4 * sum(len(k) + len(v) + 64 for k, v in pairs))
    d = tempfile.mkdtemp(prefix="records-", dir=self.temp_dir)
    env = _open(d, size)
    self.rec_env, self.rec_fields = (env, d), fields
    with env.begin(write=True) as txn:
        stored = txn.cursor().putmulti(pairs, append=True)[1]
    return stored


def _read_record(self, key):
    clock = time.perf_counter_ns
    t0 = clock()
    with self.rec_env[0].begin() as txn:
        v = txn.get(key)
        fields = None if v is None else _unpack(v)
    return fields, clock() - t0


def _update_record(self, key, field, value):
    if not 0 <= field < self.rec_fields:
        raise ValueError("update of field %d: records have %d" % (field, self.rec_fields))
    clock = time.perf_counter_ns
    t0 = clock()
    with self.rec_env[0].begin(write=True) as txn:
        v = txn.get(key)
        if v is None:
            raise ValueError("update of %r: no such record" % key.decode())
        fields = _unpack(v)
        fields[field] = value
        txn.put(key, _pack(fields))
    return clock() - t0


def _insert_record(self, key, fields):
    if len(fields) != self.rec_fields:
        raise ValueError("insert with %d fields: records have %d" % (len(fields), self.rec_fields))
    clock = time.perf_counter_ns
    t0 = clock()
    with self.rec_env[0].begin(write=True) as txn:
        if not txn.put(key, _pack(fields), overwrite=False):
            raise ValueError("insert of %r: the key exists" % key.decode())
    return clock() - t0


def _scan_records(self, start, n):
    from .records import recordsum
    clock = time.perf_counter_ns
    rows = total = 0
    t0 = clock()
    with self.rec_env[0].begin() as txn:
        cur = txn.cursor()
        if cur.set_range(start):
            for k, v in itertools.islice(cur.iternext(), n):
                total += recordsum(k, _unpack(v))
                rows += 1
    return rows, total, clock() - t0


def _teardown(self, teardown=Backend.teardown):
    rec = getattr(self, "rec_env", None)
    if rec is not None:
        rec[0].close()
        shutil.rmtree(rec[1], ignore_errors=True)
    teardown(self)


Backend.load_records = _load_records
Backend.read_record = _read_record
Backend.update_record = _update_record
Backend.insert_record = _insert_record
Backend.scan_records = _scan_records
Backend.teardown = _teardown
