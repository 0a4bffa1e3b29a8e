#include <string.h>
#include "native.h"

void dbb_native_consts(dbb_consts *out) {
	out->first = DBB_MDB_FIRST;
	out->next = DBB_MDB_NEXT;
	out->notfound = DBB_MDB_NOTFOUND;
	out->map_full = DBB_MDB_MAP_FULL;
	out->readers_full = DBB_MDB_READERS_FULL;
	out->keyexist = DBB_MDB_KEYEXIST;
	out->rdonly = DBB_MDB_RDONLY;
	out->append = DBB_MDB_APPEND;
}

/* Steps the cursor up to cap times, the first step with op and the rest with MDB_NEXT, recording
 * each pair in out. Returns 0 when cap pairs were read, else the code of the step that stopped
 * (MDB_NOTFOUND at the end). *n is the number of pairs recorded either way. */
int dbb_cursor_batch(MDB_cursor *c, int op, dbb_pair *out, int cap, int *n) {
	MDB_val k, v;
	int i = 0, rc = 0;
	while (i < cap) {
		rc = mdb_cursor_get(c, &k, &v, op);
		if (rc != 0)
			break;
		out[i].k = k.mv_data;
		out[i].kn = k.mv_size;
		out[i].v = v.mv_data;
		out[i].vn = v.mv_size;
		i++;
		op = DBB_MDB_NEXT;
	}
	*n = i;
	return rc;
}

/* Puts n pairs whose keys and values lie back to back in keys and vals with the given lengths.
 * Returns 0, or the code of the first failed put; *done counts the pairs stored. */
int dbb_put_batch(MDB_txn *txn, MDB_dbi dbi, unsigned flags, const char *keys, const uint32_t *klen,
                  const char *vals, const uint32_t *vlen, int n, int *done) {
	MDB_val k, v;
	int i, rc = 0;
	for (i = 0; i < n; i++) {
		k.mv_size = klen[i];
		k.mv_data = (void *)keys;
		v.mv_size = vlen[i];
		v.mv_data = (void *)vals;
		rc = mdb_put(txn, dbi, &k, &v, flags);
		if (rc != 0)
			break;
		keys += klen[i];
		vals += vlen[i];
	}
	*done = i;
	return rc;
}

/* One lookup in its own read transaction: renews the reset txn, gets key, copies the value into buf
 * (when it fits; *vn is its length either way) and resets the txn again, so no pointer into the map
 * outlives the snapshot. Returns 0, MDB_NOTFOUND or another LMDB code. */
int dbb_lookup_copy(MDB_txn *txn, MDB_dbi dbi, const char *key, size_t kn, char *buf, size_t cap,
                    size_t *vn) {
	MDB_val k, v;
	int rc = mdb_txn_renew(txn);
	if (rc != 0)
		return rc;
	k.mv_size = kn;
	k.mv_data = (void *)key;
	rc = mdb_get(txn, dbi, &k, &v);
	if (rc == 0) {
		*vn = v.mv_size;
		if (v.mv_size <= cap)
			memcpy(buf, v.mv_data, v.mv_size);
	}
	mdb_txn_reset(txn);
	return rc;
}
