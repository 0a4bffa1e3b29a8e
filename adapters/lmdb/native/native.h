/* C helpers that let Go move many LMDB operations per cgo call. */
#ifndef DBB_NATIVE_H
#define DBB_NATIVE_H

#include <stdint.h>
#include "mdbdecl.h"

/* One key/value pair as a cursor step found it; both point into LMDB's map. */
typedef struct dbb_pair {
	const void *k;
	size_t kn;
	const void *v;
	size_t vn;
} dbb_pair;

/* The constants this file was compiled with, for the run-time check against lmdb-go's. */
typedef struct dbb_consts {
	int first, next, notfound, map_full, readers_full, keyexist;
	unsigned rdonly, append;
} dbb_consts;

void dbb_native_consts(dbb_consts *out);
int dbb_cursor_batch(MDB_cursor *c, int op, dbb_pair *out, int cap, int *n);
int dbb_put_batch(MDB_txn *txn, MDB_dbi dbi, unsigned flags, const char *keys, const uint32_t *klen,
                  const char *vals, const uint32_t *vlen, int n, int *done);
int dbb_lookup_copy(MDB_txn *txn, MDB_dbi dbi, const char *key, size_t kn, char *buf, size_t cap,
                    size_t *vn);

#endif
