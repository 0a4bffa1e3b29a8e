import unittest

import support  # noqa: F401  (puts the client package on the path)
from dbbench_client.rowsum import MASK, M, fold, hex64, rowsum


def spec_rowsum(email, name, age):
    """RowSum written line by line from docs/protocol.md, on the spec's fold, to check the compiled fast
    path against."""
    h = (len(email) << 40) ^ (len(name) << 32) ^ age
    h = fold(fold(h, email), name)
    h = (h * M) & MASK
    return h ^ (h >> 29)


class RowSumTest(unittest.TestCase):
    def test_vectors(self):
        for v in support.VECTORS["rowsum"]:
            for f in (rowsum, spec_rowsum):
                with self.subTest(f=f.__name__, email=v["email"], name=v["name"]):
                    self.assertEqual(hex64(f(v["email"].encode(), v["name"].encode(), v["age"])), v["sum"])

    def test_every_length_agrees_with_the_spec(self):
        # Every (email length, name length) pair up to 40 bytes: each compiles its own function.
        data = bytes(range(1, 256)) * 2
        for le in range(41):
            for ln in range(0, 41, 3):
                e, nm = data[le:2 * le], data[100 + ln:100 + 2 * ln]
                self.assertEqual(rowsum(e, nm, le + ln), spec_rowsum(e, nm, le + ln), (le, ln))

    def test_bytes_like_inputs(self):
        # The lmdb backend folds memoryviews into the map; they must sum as their bytes do.
        e, nm = b"ada.abbott.0@example.com", b"Ada Abbott"
        self.assertEqual(rowsum(memoryview(e), memoryview(b"*" + nm)[1:], 42), rowsum(e, nm, 42))


if __name__ == "__main__":
    unittest.main()
