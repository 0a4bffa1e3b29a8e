"""YCSB's records (protocol 2, capability ops): the record file dbbench writes, and RecordSum.

The record file (docs/protocol.md): magic DBBRECS1, uint32 version 1, uint32 field count F, uint64
record count C, then per record a uint32-length-prefixed key and F uint32-length-prefixed fields,
little-endian. Keys and fields are bytes; dbbench writes printable ASCII only.
"""

import struct

from .rowsum import MASK, M, fold

_HEADER = struct.Struct("<8sIIQ")
_LEN = struct.Struct("<I").unpack_from


def read_record_file(path):
    """(field count, count, generator of (key, [fields])) for the record file at path, as bytes."""
    with open(path, "rb") as f:
        data = f.read()
    magic, version, fields, count = _HEADER.unpack_from(data, 0)
    if magic != b"DBBRECS1" or version != 1:
        raise ValueError("%s is not a version 1 record file" % path)

    def records():
        off = _HEADER.size
        for _ in range(count):
            parts = []
            for _ in range(fields + 1):
                (n,) = _LEN(data, off)
                off += 4
                if off + n > len(data):
                    raise ValueError("%s is cut short" % path)
                parts.append(data[off:off + n])
                off += n
            yield parts[0], parts[1:]

    return fields, count, records()


def read_records(path, count):
    """(field count, generator of (key, [fields])) of the record file at path, which load_records
    says holds count records."""
    fields, n, records = read_record_file(path)
    if n != count:
        raise ValueError("load_records: the file holds %d records, the request says %d" % (n, count))
    return fields, records


def recordsum(key, fields):
    """dataset.RecordSum of one record: key and fields as bytes."""
    h = ((len(key) << 32) ^ len(fields)) & MASK
    h = fold(h, key)
    for f in fields:
        h = ((h ^ len(f)) * M) & MASK
        h = fold(h, f)
    h = (h * M) & MASK
    return h ^ (h >> 29)


def tally_rows(rows):
    """Rows read and the sum of their recordsum, for SQL rows of (key, field0, field1, ...) as text."""
    n = total = 0
    for row in rows:
        total += recordsum(row[0].encode(), [v.encode() for v in row[1:]])
        n += 1
    return n, total


def text(v, what):
    """A key or value of a do request: a str of printable ASCII, as bytes."""
    if not isinstance(v, str):
        raise ValueError("do: %s must be a string" % what)
    return v.encode("ascii")
