import os
import unittest

import support
from dbbench_client.persons import PersonFileError, Persons
from dbbench_client.rowsum import hex64, rowsum


class PersonsTest(unittest.TestCase):
    def setUp(self):
        self.want = support.VECTORS["dataset"]
        self.p = Persons(support.DATASET)
        self.addCleanup(self.p.close)

    def test_header(self):
        self.assertEqual((self.p.n, self.p.seed), (self.want["n"], self.want["seed"]))
        self.assertEqual(hex64(self.p.sum_all), self.want["sum_all"])

    def test_person0(self):
        p0 = self.want["person0"]
        self.assertEqual(self.p.person(0), (p0["email"].encode(), p0["name"].encode(), p0["age"]))

    def test_sums(self):
        p = self.p
        cases = [
            ("sum_all", range(p.n)),
            ("sum_first_10", range(10)),
            ("sum_sorted_prefix_10", p.sorted[:10]),
        ]
        for field, indices in cases:
            with self.subTest(field):
                self.assertEqual(hex64(sum(rowsum(*p.person(i)) for i in indices)), self.want[field])

    def test_sorted_is_email_order(self):
        emails = [self.p.email(i) for i in self.p.sorted]
        self.assertEqual(emails, sorted(emails))
        self.assertEqual(sorted(self.p.sorted), list(range(self.p.n)))


class BadFileTest(unittest.TestCase):
    def test_refused(self):
        with open(support.DATASET, "rb") as f:
            good = f.read()
        cases = {
            "empty": b"",
            "magic": b"NOTPERS1" + good[8:],
            "version": good[:8] + (2).to_bytes(4, "little") + good[12:],
            "truncated": good[:-1],
        }
        d = support.temp_dir(self)
        for name, data in cases.items():
            with self.subTest(name):
                path = os.path.join(d, name)
                with open(path, "wb") as f:
                    f.write(data)
                with self.assertRaises(PersonFileError):
                    Persons(path).close()


if __name__ == "__main__":
    unittest.main()
