"""The person file of docs/protocol.md, mapped read-only: no copy of the whole file is ever made."""

import mmap
import operator
import os
import struct
import sys

MAGIC = b"DBBPERS1"
_HEADER = struct.Struct("<8sII6Q")


class PersonFileError(ValueError):
    pass


class Persons:
    """Person i is (email(i), name(i), age(i)); sorted[j] is the index of the j-th person in email
    byte order. Emails and names come back as bytes (small slices of the map)."""

    def __init__(self, path):
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size < _HEADER.size:
                raise PersonFileError("%s: not a person file (shorter than its header)" % path)
            self._mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            self._layout(path)
        except Exception:
            self.close()
            raise

    def _layout(self, path):
        mm = self._mm
        magic, version, hsize, n, seed, e, m, total, _ = _HEADER.unpack_from(mm)
        if magic != MAGIC:
            raise PersonFileError("%s: not a person file (no %s header)" % (path, MAGIC.decode()))
        if version != 1:
            raise PersonFileError("%s: person file version %d, this client reads 1" % (path, version))
        want = hsize + 13 * n + 8 + e + m
        if hsize < _HEADER.size or n == 0 or len(mm) != want:
            raise PersonFileError("%s: %d bytes, the header says %d" % (path, len(mm), want))
        self.n, self.seed, self.sum_all = n, seed, total
        view = memoryview(mm)
        off = hsize
        self._email_off = _u32s(view[off:off + 4 * (n + 1)])
        off += 4 * (n + 1)
        self._name_off = _u32s(view[off:off + 4 * (n + 1)])
        off += 4 * (n + 1)
        self.sorted = _u32s(view[off:off + 4 * n])
        off += 4 * n
        self._ages = off
        self._emails = off + n
        self._names = off + n + e
        if self._email_off[n] != e or self._name_off[n] != m:
            raise PersonFileError("%s: offsets do not span the emails and names" % path)

    def email(self, i):
        o = self._email_off
        return self._mm[self._emails + o[i]:self._emails + o[i + 1]]

    def name(self, i):
        o = self._name_off
        return self._mm[self._names + o[i]:self._names + o[i + 1]]

    def age(self, i):
        return self._mm[self._ages + i]

    def person(self, i):
        return self.email(i), self.name(i), self.age(i)

    def length_pairs(self):
        """The distinct (email length, name length) pairs of the dataset."""
        e, m = self._email_off, self._name_off
        return set(zip(map(operator.sub, e[1:], e[:-1]), map(operator.sub, m[1:], m[:-1])))

    def close(self):
        for v in ("_email_off", "_name_off", "sorted"):
            view = self.__dict__.pop(v, None)
            if isinstance(view, memoryview):
                view.release()
        try:
            self._mm.close()
        except BufferError:
            pass  # a view of the map is still alive somewhere; the collector unmaps it with the view


def _u32s(view):
    """A little-endian uint32 array: a zero-copy view on little-endian machines."""
    if sys.byteorder == "little":
        return view.cast("I")
    import array
    a = array.array("I", view)
    a.byteswap()
    return a
