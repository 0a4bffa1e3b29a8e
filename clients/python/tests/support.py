"""Paths and the committed test vectors every test reads."""

import json
import os
import sys

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
