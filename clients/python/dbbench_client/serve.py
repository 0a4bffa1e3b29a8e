"""The serving loop: newline-delimited JSON requests on stdin, one reply each on stdout."""

import json
import platform
import sys

from . import VERSION
from .records import text
from .rowsum import hex64

PROTOCOLS = (1, 2)  # 2, and 1 for an older dbbench
WORKLOADS = ["scan", "lookup", "insert", "concurrent"]


class RequestError(Exception):
    """A bad request: answered with an error, the client stays usable."""


def load_backend(library):
    """The backend class for a LIBRARY argument; imports only that library."""
    if library == "lmdb":
        from .lmdb_backend import Backend
    elif library == "sqlite3":
        from .sqlite_backend import Backend
    elif library == "psycopg2":
        from .pg_backend import Backend
    else:
        raise RequestError("unknown library %r: want lmdb, sqlite3 or psycopg2" % library)
    return Backend


class Server:
    def __init__(self, backend_class):
        self.backend_class = backend_class
        self.backend = None
        self.version = 1  # what hello agreed
        self.kept = False  # an insert's fresh store is kept for dbbench to read, until drop
        self.profile = False  # open asked for the phases of scans and lookups (capability phases)

    def handle(self, req):
        """The reply to one decoded request (without its id)."""
        op = req.get("op")
        if op == "hello":
            return self.hello(req)
        if op == "ping":
            return {}
        if op == "open":
            if self.backend is not None:
                raise RequestError("open: already open")
            profile = req.get("profile", False)
            if profile and not self.offers_phases():
                raise RequestError("open: profile asks for phases, which this client does not offer (protocol 2, capability phases)")
            backend = self.backend_class()
            info, in_key_order = backend.open(req)
            self.backend, self.profile = backend, profile is True
            return {"info": info, "scans_in_key_order": in_key_order}
        if op == "close":
            self.close()
            return {}
        if op in ("load_records", "do") and (self.version < 2 or not hasattr(self.backend_class, "load_records")):
            raise RequestError("%s: this client serves no records with %s (capability ops)" % (op, self.backend_class.library))
        if op in ("load", "scan", "lookup", "insert", "drop", "concurrent", "run", "load_records", "do"):
            if self.backend is None:
                raise RequestError("%s before open" % op)
            return getattr(self, "op_" + op)(req)
        raise RequestError("unknown op %r" % (op,))

    def hello(self, req):
        if req.get("protocol") not in PROTOCOLS or type(req.get("protocol")) is not int:
            raise RequestError("protocol %r requested; this client speaks 1 and 2" % (req.get("protocol"),))
        self.version = req["protocol"]
        b = self.backend_class
        reply = {
            "protocol": self.version,
            "client": "dbbench-client-python",
            "client_version": VERSION,
            "language": "Python",
            "runtime": "%s %s" % (platform.python_implementation(), platform.python_version()),
            "library": b.library,
            "library_version": b.library_version(),
            "workloads": WORKLOADS,
            "options": sorted(b.options),
        }
        if self.version >= 2:
            # dbbench reads the loaded store and each insert's fresh store back itself
            reply["capabilities"] = ["keep_store", "store"]
            if hasattr(b, "load_records"):
                reply["capabilities"].append("ops")  # YCSB's records: load_records and do
            if self.offers_phases():
                reply["capabilities"].append("phases")  # scans' and lookups' phases, when asked
        return reply

    def offers_phases(self):
        return self.version >= 2 and hasattr(self.backend_class, "scan_profiled")

    def op_load_records(self, req):
        path = req.get("file")
        if not isinstance(path, str):
            raise RequestError("load_records: file must be a path")
        return {"rows": self.backend.load_records(path, count(req, "count"))}

    def op_do(self, req):
        try:
            return self.do(req)
        except RequestError:
            raise
        except Exception as e:  # a missing record, a duplicate key: the operation's error, not the client's
            raise RequestError("do %s: %s: %s" % (req.get("kind"), type(e).__name__, one_line(e)))

    def do(self, req):
        kind, key = req.get("kind"), text(req.get("key"), "key")
        b = self.backend
        if kind == "read":
            fields, elapsed = b.read_record(key)
            if fields is None:
                return {"ns": elapsed, "found": False}
            return {"ns": elapsed, "found": True, "fields": [f.decode("ascii") for f in fields]}
        if kind == "update":
            field = req.get("field")
            if type(field) is not int:
                raise RequestError("do update: field must be an integer")
            return {"ns": b.update_record(key, field, text(req.get("value"), "value"))}
        if kind == "insert":
            fields = req.get("fields")
            if not isinstance(fields, list):
                raise RequestError("do insert: fields must be a list")
            return {"ns": b.insert_record(key, [text(f, "field") for f in fields])}
        if kind == "scan":
            rows, total, elapsed = b.scan_records(key, count(req, "count"))
            return {"ns": elapsed, "rows": rows, "checksum": hex64(total)}
        raise RequestError("do: unknown kind %r (read, update, insert or scan)" % (kind,))

    def op_load(self, req):
        rows, elapsed = self.backend.load()
        reply = {"rows": rows, "elapsed_ns": elapsed}
        if self.version >= 2:
            reply["store"] = self.backend.store()
        return reply

    def op_scan(self, req):
        if self.profile:
            rows, total, elapsed, phases = self.backend.scan_profiled(count(req, "rows"))
            return {"rows": rows, "checksum": hex64(total), "elapsed_ns": elapsed, "phases_ns": phases}
        rows, total, elapsed = self.backend.scan(count(req, "rows"))
        return {"rows": rows, "checksum": hex64(total), "elapsed_ns": elapsed}

    def op_lookup(self, req):
        keys = req.get("keys")
        n = self.backend.persons.n
        if not isinstance(keys, list) or not all(type(k) is int and 0 <= k < n for k in keys):
            raise RequestError("lookup: keys must be a list of dataset indices in [0, %d)" % n)
        if self.profile:
            rows, total, latencies, phases = self.backend.lookup_profiled(keys)
            return {"rows": rows, "checksum": hex64(total), "latencies_ns": latencies, "phases_ns": phases}
        rows, total, latencies = self.backend.lookup(keys)
        return {"rows": rows, "checksum": hex64(total), "latencies_ns": latencies}

    def op_insert(self, req):
        rows = count(req, "rows")
        if rows > self.backend.persons.n:
            raise RequestError("insert: rows %d > %d persons in the dataset" % (rows, self.backend.persons.n))
        if req.get("keep"):
            if self.version < 2:
                raise RequestError("insert: keep needs protocol version 2")
            if self.kept:
                raise RequestError("insert: the last insert's store is still kept (send drop first)")
            elapsed, store = self.backend.insert_keep(rows)
            self.kept = True
            return {"elapsed_ns": elapsed, "store": store}
        rows, total, elapsed = self.backend.insert(rows)
        return {"rows": rows, "checksum": hex64(total), "elapsed_ns": elapsed}

    def op_drop(self, req):
        if not self.kept:
            raise RequestError("drop: no insert kept its store")
        self.kept = False
        self.backend.drop()
        return {}

    def op_concurrent(self, req):
        readers = count(req, "readers")
        if readers < 1:
            raise RequestError("concurrent: readers must be at least 1")
        wall, tallies = self.backend.concurrent(readers, count(req, "rows"))
        return {
            "wall_ns": wall,
            "readers": [{"rows": r, "checksum": hex64(s), "elapsed_ns": e} for r, s, e in tallies],
        }

    def op_run(self, req):
        raise RequestError("run: this client has no adapter-specific workloads (asked for %r)" % (req.get("workload"),))

    def close(self):
        backend, self.backend = self.backend, None
        if backend is not None:
            if self.kept:
                self.kept = False
                backend.drop()
            backend.close()


def count(req, field):
    v = req.get(field)
    if type(v) is not int or v < 0:
        raise RequestError("%s: %s must be a non-negative integer, got %r" % (req.get("op"), field, v))
    return v


def one_line(e):
    msg = str(e) or type(e).__name__
    return " ".join(msg.split())


def serve(server, stdin, stdout, log):
    """Answer requests until end of input. Every failure becomes an error reply."""
    for line in stdin:
        try:
            req = json.loads(line)
        except ValueError as e:
            reply = {"id": 0, "error": "request is not JSON: %s" % one_line(e)}
        else:
            reply = answer(server, req, log)
        stdout.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
        stdout.flush()


def answer(server, req, log):
    # 0 is no request's id: the reply to a request whose own id cannot be read (docs/protocol.md)
    if not isinstance(req, dict):
        return {"id": 0, "error": "request is not a JSON object"}
    rid = req.get("id")
    if type(rid) is not int:
        return {"id": 0, "error": "request has no integer id"}
    try:
        reply = server.handle(req)
    except RequestError as e:
        return {"id": rid, "error": one_line(e)}
    except Exception as e:  # a library failure: say which, keep serving
        log("%s failed: %s: %s" % (req.get("op"), type(e).__name__, one_line(e)))
        return {"id": rid, "error": "%s: %s: %s" % (req.get("op"), type(e).__name__, one_line(e))}
    reply["id"] = rid
    return reply


def main(argv):
    def log(msg):
        sys.stderr.write("dbbench-client-python: %s\n" % msg)
        sys.stderr.flush()

    if len(argv) != 2:
        log("usage: dbbench-client.py lmdb|sqlite3|psycopg2")
        return 2
    try:
        backend_class = load_backend(argv[1])
    except RequestError as e:
        log(str(e))
        return 2
    except ImportError as e:
        log("%s is not installed for %s (%s): on Debian, apt-get install -y python3-%s and run /usr/bin/python3"
            % (argv[1], sys.executable, e, argv[1]))
        return 2
    # stdout carries the protocol only: anything a library prints goes to stderr instead.
    out = sys.stdout.buffer
    sys.stdout = sys.stderr
    server = Server(backend_class)
    try:
        serve(server, sys.stdin.buffer, out, log)
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    finally:
        server.close()
    return 0
