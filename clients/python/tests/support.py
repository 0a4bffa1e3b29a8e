"""Paths and the committed test vectors every test reads, and the set-up the tests share."""

import importlib.util
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(CLIENT_DIR))
TESTDATA = os.path.join(REPO, "dataset", "testdata")
CLIENT = os.path.join(CLIENT_DIR, "dbbench-client.py")

sys.path.insert(0, CLIENT_DIR)

with open(os.path.join(TESTDATA, "vectors.json")) as f:
    VECTORS = json.load(f)

DATASET = os.path.join(TESTDATA, VECTORS["dataset"]["file"])


def require_clients():
    """True when a missing library must fail the tests instead of skipping them (CI)."""
    return os.environ.get("DBBENCH_REQUIRE_CLIENTS") == "1"


def available(module):
    """True when module imports here; False when it does not (the test skips), unless
    DBBENCH_REQUIRE_CLIENTS=1, when a missing module fails the test."""
    if importlib.util.find_spec(module) is not None:
        return True
    if require_clients():
        raise AssertionError("%s is not installed and DBBENCH_REQUIRE_CLIENTS=1 (apt-get install -y python3-%s)"
                             % (module, module))
    return False


def temp_dir(test):
    """A fresh directory, removed when test ends."""
    d = tempfile.mkdtemp(prefix="dbbench-py-test-")
    test.addCleanup(shutil.rmtree, d)
    return d
