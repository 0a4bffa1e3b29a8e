"""What every backend shares: the open request, its options, the dataset and the concurrent workload."""

import contextlib
import os
import re

from . import rowsum
from .persons import Persons
from .readers import check_kind, run_readers


class BaseBackend:
    library = None
    concurrency = "processes"  # the default kind of concurrent reader; see readers.py
    # option name -> parser of the value given in the target's `client:` map
    options = {"concurrency": check_kind}

    def open(self, req):
        opts = req.get("options") or {}
        if not isinstance(opts, dict):
            raise ValueError("options must be an object")
        unknown = sorted(set(opts) - set(self.options))
        if unknown:
            raise ValueError("unknown option %s; this client takes %s"
                             % (", ".join(unknown), ", ".join(sorted(self.options))))
        self.opts = {k: self.options[k](v) for k, v in opts.items()}
        self.concurrency = self.opts.get("concurrency", self.concurrency)
        self.temp_dir = req.get("temp_dir")
        if not isinstance(self.temp_dir, str) or not os.path.isdir(self.temp_dir):
            raise ValueError("temp_dir %r is not a directory" % (self.temp_dir,))
        dataset = req.get("dataset")
        if not isinstance(dataset, str):
            raise ValueError("open: no dataset path")
        self.persons = Persons(dataset)
        try:
            for field, have in (("size", self.persons.n), ("seed", self.persons.seed)):
                want = req.get(field, have)
                if type(want) is not int or want % (1 << 64) != have:  # the file holds a seed as uint64
                    raise ValueError("open: %s %r, the person file says %d" % (field, req[field], have))
            rowsum.prepare(self.persons.length_pairs())
            info, in_key_order = self.setup(req)
        except Exception:
            self.persons.close()
            raise
        info["concurrency"] = self.concurrency
        info["rowsum_ns_per_row"] = rowsum.cost_ns(self.persons)
        return info, in_key_order

    def insert(self, n):
        """Protocol 1's insert: insert_keep, then the client's own read-back (read_kept), then drop."""
        elapsed, _ = self.insert_keep(n)
        try:
            rows, total, _ = self.read_kept(n)
        finally:
            self.drop()
        return rows, total, elapsed

    def concurrent(self, readers, rows):
        return run_readers(readers, lambda: self.reader(rows), self.concurrency, self.forking)

    def forking(self):
        """The context concurrent readers are forked in; a backend whose library must not cross a
        fork open overrides it."""
        return contextlib.nullcontext()

    def close(self):
        self.teardown()
        self.persons.close()

    def emails_str(self, indices):
        return [self.persons.email(i).decode() for i in indices]

    def persons_str(self, indices):
        p = self.persons
        return [(p.email(i).decode(), p.name(i).decode(), p.age(i)) for i in indices]


_SIZE = re.compile(r"^\s*(\d+)\s*([KMGT]i?B|B)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def parse_size(v):
    """A byte count: an integer or a string such as "1GiB" or "512MB"."""
    if type(v) is int and v > 0:
        return v
    m = _SIZE.match(v) if isinstance(v, str) else None
    if not m or int(m.group(1)) == 0:
        raise ValueError("size %r: want a positive byte count such as 1073741824 or \"1GiB\"" % (v,))
    return int(m.group(1)) * _UNITS[(m.group(2) or "").lower()]
