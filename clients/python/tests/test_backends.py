"""The backends in process: what they store, beyond what the protocol shows."""

import unittest

import support


class LMDBLayoutTest(unittest.TestCase):
    def test_values_match_the_go_and_c_targets(self):
        if not support.available("lmdb"):
            self.skipTest("python3-lmdb is not installed")
        from dbbench_client.lmdb_backend import Backend
        d = support.temp_dir(self)
        b = Backend()
        info, _ = b.open({"options": {}, "temp_dir": d, "dataset": support.DATASET})
        self.addCleanup(b.close)
        self.assertIs(info["sync"], False)
        self.assertEqual(b.load()[0], b.persons.n)
        p0 = support.VECTORS["dataset"]["person0"]
        with b.env.begin() as txn:
            value = txn.get(p0["email"].encode())
        self.assertEqual(value, bytes([p0["age"]]) + p0["name"].encode())
        self.assertEqual(b.env.stat()["entries"], b.persons.n)


class SQLiteSettingsTest(unittest.TestCase):
    def test_settings(self):
        from dbbench_client.sqlite_backend import Backend
        cases = [
            ({}, "wal", "normal"),
            ({"journal_mode": "DELETE", "synchronous": "full"}, "delete", "full"),
        ]
        for options, journal, sync in cases:
            with self.subTest(options=options):
                d = support.temp_dir(self)
                b = Backend()
                info, _ = b.open({"options": options, "temp_dir": d, "dataset": support.DATASET})
                b.close()
                self.assertEqual((info["journal_mode"], info["synchronous"]), (journal, sync))

    def test_bad_values(self):
        from dbbench_client.sqlite_backend import Backend
        for options in ({"journal_mode": "wal2"}, {"synchronous": 1}, {"concurrency": "fibers"}, {"map_size": 1}):
            with self.subTest(options=options):
                d = support.temp_dir(self)
                with self.assertRaises(ValueError):
                    Backend().open({"options": options, "temp_dir": d, "dataset": support.DATASET})


class PostgresSecretTest(unittest.TestCase):
    def test_dsn_never_in_errors(self):
        if not support.available("psycopg2"):
            self.skipTest("python3-psycopg2 is not installed")
        from dbbench_client.pg_backend import Backend
        cases = [
            "postgres://bob:s3cret@127.0.0.1:1/db",  # refused: nothing listens on port 1
            "host=127.0.0.1 port=1 user=bob password=s3cret",
            "bob:s3cret junk",  # not a DSN: libpq quotes it
            "host=127.0.0.1 password=s3cret bogus=1",
        ]
        for dsn in cases:
            with self.subTest(dsn=dsn):
                d = support.temp_dir(self)
                req = {"options": {}, "temp_dir": d, "dataset": support.DATASET,
                       "postgres": {"dsn": dsn, "schema": "s"}}
                with self.assertRaises(ValueError) as cm:
                    Backend().open(req)
                self.assertNotIn("s3cret", str(cm.exception))
                self.assertTrue(str(cm.exception).startswith("postgres: "), cm.exception)


class SizeTest(unittest.TestCase):
    def test_parse_size(self):
        from dbbench_client.backend import parse_size
        for v, want in [(4096, 4096), ("1GiB", 1 << 30), ("512MB", 512 * 10**6), ("64 mib", 64 << 20), ("100", 100)]:
            self.assertEqual(parse_size(v), want, v)
        for v in (0, -1, "1XB", "", "GiB", True, 1.5):
            with self.assertRaises(ValueError, msg=v):
                parse_size(v)


if __name__ == "__main__":
    unittest.main()
