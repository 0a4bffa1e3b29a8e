"""dbbench's Python reference client: the protocol of docs/protocol.md over py-lmdb, sqlite3 and
psycopg2. Run it as `/usr/bin/python3 clients/python/dbbench-client.py LIBRARY`."""

VERSION = "1.0.0"
