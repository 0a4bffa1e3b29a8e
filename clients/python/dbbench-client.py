#!/usr/bin/python3
"""dbbench's Python reference client. Usage: /usr/bin/python3 clients/python/dbbench-client.py lmdb|sqlite3|psycopg2"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dbbench_client.serve import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv))
