"""RecordSum against dataset.RecordSum's values, and the record file reader."""

import os
import struct
import tempfile
import unittest

import support  # noqa: F401 (puts the client on sys.path)
from dbbench_client.records import read_record_file, recordsum


class RecordSumTest(unittest.TestCase):
    def test_vectors(self):
        # computed by dataset.RecordSum (Go)
        self.assertEqual(recordsum(b"", []), 0)
        self.assertEqual(recordsum(b"user1", [b"abc", b"", b"0123456789abcdefX"]), 0x5608F1AFC9937C37)

    def test_order_of_fields_counts(self):
        self.assertNotEqual(recordsum(b"k", [b"a", b"b"]), recordsum(b"k", [b"b", b"a"]))


class RecordFileTest(unittest.TestCase):
    def write(self, data):
        fd, path = tempfile.mkstemp()
        self.addCleanup(os.remove, path)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return path

    def test_reads_records(self):
        def lp(b):
            return struct.pack("<I", len(b)) + b
        body = lp(b"user1") + lp(b"x") + lp(b"") + lp(b"k2") + lp(b"yy") + lp(b"zzz")
        fields, count, recs = read_record_file(self.write(b"DBBRECS1" + struct.pack("<IIQ", 1, 2, 2) + body))
        self.assertEqual((fields, count), (2, 2))
        self.assertEqual(list(recs), [(b"user1", [b"x", b""]), (b"k2", [b"yy", b"zzz"])])

    def test_refuses_other_files(self):
        with self.assertRaises(ValueError):
            read_record_file(self.write(b"DBBPERS1" + bytes(16)))


if __name__ == "__main__":
    unittest.main()
