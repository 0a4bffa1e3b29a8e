"""RowSum, the per-row checksum of docs/protocol.md, in pure Python.

Python integers are unbounded, so every product is masked to 64 bits. The generic loop costs
about 40% more than straight-line code, and a dataset has only a few hundred distinct
(email length, name length) pairs, so rowsum() compiles one specialised function per pair on
first use: one struct call unpacks each field's words, then the multiplications run unrolled.
fold() is the spec's word fold, which RecordSum (records.py) shares.
"""

import struct
import time

M = 0x9E3779B97F4A7C15
MASK = (1 << 64) - 1

_last_word = struct.Struct("<Q").unpack_from
_compiled = {}


def rowsum(email, name, age):
    """The RowSum of one decoded row: email and name as bytes-like objects, age as an int."""
    f = _compiled.get((len(email), len(name)))
    if f is None:
        f = _compile(len(email), len(name))
    return f(email, name, age)


def prepare(length_pairs):
    """Compile the functions for these (email length, name length) pairs ahead of the timed work."""
    for le, ln in length_pairs:
        if (le, ln) not in _compiled:
            _compile(le, ln)


def cost_ns(persons, rows=2000):
    """RowSum's own cost per row on this machine now: the best of 3 passes over the first persons.
    Every timed region of this client includes it; the info of `open` reports it."""
    sample = [persons.person(i) for i in range(min(rows, persons.n))]
    best = None
    for _ in range(3):
        start = time.perf_counter_ns()
        for email, name, age in sample:
            rowsum(email, name, age)
        t = (time.perf_counter_ns() - start) // len(sample)
        best = t if best is None else min(best, t)
    return best


def tally(rows):
    """Rows read and the sum of their RowSum, for rows of (email, name, age) with str fields, as the
    SQL drivers return them."""
    n = total = 0
    for email, name, age in rows:
        total += rowsum(email.encode(), name.encode(), age)
        n += 1
    return n, total


def fold(h, s):
    """The spec's fold of the bytes s into h (docs/protocol.md), word by word: RecordSum's, and the
    reference the compiled RowSum functions are tested against."""
    n = len(s)
    if n < 8:
        return ((h ^ int.from_bytes(s, "little")) * M) & MASK
    p = 0
    while n - p > 8:
        h = ((h ^ int.from_bytes(s[p:p + 8], "little")) * M) & MASK
        p += 8
    return ((h ^ int.from_bytes(s[n - 8:], "little")) * M) & MASK


def _compile(le, ln):
    g = {"M": M, "MASK": MASK, "from_bytes": int.from_bytes, "last": _last_word}
    lines = ["def f(e, nm, age):"]
    words = _words(lines, g, "e", le) + _words(lines, g, "nm", ln)
    lines.append("    h = %d ^ age" % ((le << 40) ^ (ln << 32)))
    lines += ["    h = ((h ^ %s) * M) & MASK" % w for w in words]
    lines.append("    h = (h * M) & MASK")
    lines.append("    return h ^ (h >> 29)")
    exec("\n".join(lines), g)
    _compiled[(le, ln)] = g["f"]
    return g["f"]


def _words(lines, g, var, n):
    """Emit the statements reading the words fold() XORs in for a field of n bytes."""
    if n < 8:
        lines.append("    %s0 = from_bytes(%s, 'little')" % (var, var))
        return [var + "0"]
    k = (n - 1) // 8  # full words before the last, which overlaps when n % 8 != 0
    names = ["%s%d" % (var, i) for i in range(k + 1)]
    if k:
        g["unpack_" + var] = struct.Struct("<%dQ" % k).unpack_from
        lines.append("    %s, = unpack_%s(%s)" % (", ".join(names[:k]), var, var))
    lines.append("    %s, = last(%s, %d)" % (names[k], var, n - 8))
    return names


def hex64(s):
    """The protocol's spelling of a checksum: 16 lowercase hexadecimal digits."""
    return "%016x" % (s & MASK)
